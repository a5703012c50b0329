/**
 * Session files compressed with zstd (`.jsonl.zst`: Codex writes its rollouts so when its
 * rollout compression is on): their bytes decompressed as they stream (`node:zlib`), and
 * their lines with offsets into the decompressed bytes, so every line reader reads them as it
 * reads a plain file.
 *
 * @module
 */
import type * as Zlib from "node:zlib";
import type { Line } from "./_line.ts";

/** Whether the file at `path` is compressed (its name ends in `.zst`). */
export function isCompressed(path: string): boolean {
  return path.endsWith(".zst");
}

/**
 * A stream that decompresses zstd, in bounded memory.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zstdCompressSync } from "node:zlib";
 * import { zstdDecompression } from "./mod.ts";
 * const packed = new Blob([new Uint8Array(zstdCompressSync(new TextEncoder().encode("a\nb\n")))]).stream();
 * const text = await new Response(packed.pipeThrough(zstdDecompression())).text();
 * assert.equal(text, "a\nb\n");
 * ```
 */
export function zstdDecompression(): TransformStream<Uint8Array, Uint8Array> {
  const zstd = zlib().createZstdDecompress();
  let failed: Error | undefined;
  zstd.on("error", (error: Error) => failed = error);
  return new TransformStream({
    start(controller) {
      zstd.on("data", (data: Uint8Array) => controller.enqueue(new Uint8Array(data)));
    },
    transform(chunk) {
      return new Promise((done, fail) => {
        zstd.write(chunk, (error) => (error ?? failed) ? fail(error ?? failed) : done());
      });
    },
    flush() {
      return new Promise((done, fail) => {
        if (failed) return fail(failed);
        zstd.once("end", () => done());
        zstd.once("error", fail);
        zstd.end();
      });
    },
  });
}

/**
 * `node:zlib`, loaded the first time a compressed file is read: in a static import it costs
 * every command's start its load (about 10 ms), for files that are almost never compressed.
 */
function zlib(): typeof Zlib {
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(name: "node:zlib"): typeof Zlib };
  }).process;
  return process.getBuiltinModule("node:zlib");
}

/**
 * The bytes of the session file at `path`, decompressed when it is compressed (`.zst`): what
 * a reader of any session file (an archive, a copy) reads instead of the file itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { zstdCompressSync } from "node:zlib";
 * import { openSessionBytes } from "./mod.ts";
 * const path = await Deno.makeTempFile({ suffix: ".jsonl.zst" });
 * await Deno.writeFile(path, zstdCompressSync(new TextEncoder().encode('{"a":1}\n')));
 * assert.equal(await new Response(await openSessionBytes(path)).text(), '{"a":1}\n');
 * await Deno.remove(path);
 * ```
 */
export async function openSessionBytes(path: string): Promise<ReadableStream<Uint8Array>> {
  const file = await Deno.open(path, { read: true });
  return isCompressed(path) ? file.readable.pipeThrough(zstdDecompression()) : file.readable;
}

/**
 * How far into a file of `size` bytes on disk a line reader reads: all of it; a compressed
 * file, however many bytes it decompresses to (a reader's bound is in decompressed bytes).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readableBytes } from "./mod.ts";
 * assert.equal(readableBytes("a.jsonl", 10), 10);
 * assert.equal(readableBytes("a.jsonl.zst", 10), Number.MAX_SAFE_INTEGER);
 * ```
 */
export function readableBytes(path: string, size: number): number {
  return isCompressed(path) ? Number.MAX_SAFE_INTEGER : size;
}

const NEWLINE = 10;
const decoder = new TextDecoder("utf-8", { ignoreBOM: false });

/**
 * The lines of a compressed session file, a chunk's lines at a time, with their numbers and
 * byte offsets into the decompressed bytes; the lines before `start` (a decompressed offset,
 * a line's start) are passed over, and the line at `start` is number `firstLine`.
 */
export async function* compressedLineChunks(
  path: string,
  start = 0,
  firstLine = 1,
): AsyncGenerator<Line[]> {
  let carry = new Uint8Array(0);
  let offset = 0; // the decompressed offset of carry's first byte
  let number = firstLine;
  for await (const chunk of await openSessionBytes(path)) {
    const bytes = carry.length === 0 ? chunk : concat(carry, chunk);
    const lines: Line[] = [];
    let from = 0;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, from)) {
      if (offset + from >= start) {
        lines.push({
          line: number++,
          text: decoder.decode(bytes.subarray(from, at)).replace(/\r$/, ""),
          start: offset + from,
          end: offset + at + 1,
          terminated: true,
        });
      }
      from = at + 1;
    }
    carry = bytes.slice(from);
    offset += from;
    if (lines.length > 0) yield lines;
  }
  if (carry.length > 0 && offset >= start) {
    const text = decoder.decode(carry);
    yield [{ line: number, text, start: offset, end: offset + carry.length, terminated: false }];
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}
