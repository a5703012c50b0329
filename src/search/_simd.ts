/**
 * The bytes a search reads, in WebAssembly memory, and one SIMD scan over them: the first
 * place where two given bytes stand side by side, each compared without its ASCII case, 16
 * positions at a time. The module is 212 bytes, assembled from this text (wabt's wat2wasm,
 * with SIMD):
 *
 * ```wat
 * (module
 *   (memory (export "memory") 1)
 *   (func (export "pair")
 *     (param $p i32) (param $end i32) (param $a i32) (param $am i32) (param $b i32) (param $bm i32)
 *     (result i32)
 *     (local $va v128) (local $vam v128) (local $vb v128) (local $vbm v128) (local $mask i32)
 *     (local.set $va (i8x16.splat (local.get $a)))
 *     (local.set $vam (i8x16.splat (local.get $am)))
 *     (local.set $vb (i8x16.splat (local.get $b)))
 *     (local.set $vbm (i8x16.splat (local.get $bm)))
 *     (block $done
 *       (loop $next
 *         (br_if $done (i32.gt_u (i32.add (local.get $p) (i32.const 17)) (local.get $end)))
 *         (local.set $mask
 *           (i8x16.bitmask
 *             (v128.and
 *               (i8x16.eq (v128.or (v128.load (local.get $p)) (local.get $vam)) (local.get $va))
 *               (i8x16.eq (v128.or (v128.load offset=1 (local.get $p)) (local.get $vbm)) (local.get $vb)))))
 *         (if (local.get $mask)
 *           (then (return (i32.add (local.get $p) (i32.ctz (local.get $mask))))))
 *         (local.set $p (i32.add (local.get $p) (i32.const 16)))
 *         (br $next)))
 *     (block $tdone
 *       (loop $tnext
 *         (br_if $tdone (i32.ge_u (i32.add (local.get $p) (i32.const 1)) (local.get $end)))
 *         (if (i32.and
 *               (i32.eq (i32.or (i32.load8_u (local.get $p)) (local.get $am)) (local.get $a))
 *               (i32.eq (i32.or (i32.load8_u offset=1 (local.get $p)) (local.get $bm)) (local.get $b)))
 *           (then (return (local.get $p))))
 *         (local.set $p (i32.add (local.get $p) (i32.const 1)))
 *         (br $tnext)))
 *     (i32.const -1)))
 * ```
 *
 * @module
 */

const PAIR_WASM =
  "AGFzbQEAAAABCwFgBn9/f39/fwF/AwIBAAUDAQABBxECBm1lbW9yeQIABHBhaXIAAAqgAQGdAQIEewF/IAL9DyEGIAP9DyEHIAT9DyEIIAX9DyEJAkADQCAAQRFqIAFLDQEgAP0ABAAgB/1QIAb9IyAA/QAEASAJ/VAgCP0j/U79ZCEKIAoEQCAAIApoag8LIABBEGohAAwACwsCQANAIABBAWogAU8NASAALQAAIANyIAJGIAAtAAEgBXIgBEZxBEAgAA8LIABBAWohAAwACwtBfws=";

const PAGE = 64 * 1024;
let compiled: WebAssembly.Module | undefined;

/** The compiled module, once per process. */
function pairModule(): WebAssembly.Module {
  const bytes = Uint8Array.from(atob(PAIR_WASM), (c) => c.charCodeAt(0));
  return compiled ??= new WebAssembly.Module(bytes);
}

type Pair = (p: number, end: number, a: number, am: number, b: number, bm: number) => number;

/** A buffer in WebAssembly memory, and the pair scan over it. */
export class ScanBuffer {
  readonly #memory: WebAssembly.Memory;
  readonly #pair: Pair;
  #bytes: Uint8Array;

  /** A buffer of at least `size` bytes. */
  constructor(size: number) {
    const instance = new WebAssembly.Instance(pairModule());
    this.#memory = instance.exports.memory as WebAssembly.Memory;
    this.#pair = instance.exports.pair as Pair;
    this.#bytes = new Uint8Array(0);
    this.grow(size);
  }

  /** The buffer (its view changes when it grows). */
  get bytes(): Uint8Array {
    return this.#bytes;
  }

  /** Makes the buffer at least `size` bytes, keeping what it holds. */
  grow(size: number): void {
    const pages = Math.ceil((size + 32) / PAGE) - this.#memory.buffer.byteLength / PAGE;
    if (pages > 0) this.#memory.grow(pages);
    this.#bytes = new Uint8Array(this.#memory.buffer, 0, size);
  }

  /**
   * The first `i` in `[from, end - 1)` where `bytes[i] | am === a` and
   * `bytes[i + 1] | bm === b`, or -1 (`am` = 0x20 ignores a letter's case, 0 compares exactly).
   */
  pair(from: number, end: number, a: number, am: number, b: number, bm: number): number {
    return this.#pair(from, end, a, am, b, bm);
  }
}
