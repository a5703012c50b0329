/**
 * The generator's text: prose and code sliced from two pools at random offsets, so a gigabyte
 * of sessions stays fast to write, with some non-ASCII text as real sessions carry.
 *
 * @module
 */
import { Rng } from "./_rng.ts";

/** Words of the prose pool; also the generator's path segments. */
export const WORDS: readonly string[] = (
  "the a to of and in is it that for on with as was this by be are from at or an have not " +
  "session resume replay record history tool call output model turn file line error value " +
  "function return const let import export async await type interface string number true " +
  "false null undefined test check build run deno json parse stream chunk buffer offset " +
  "compaction checkpoint summary user assistant system message request response token usage " +
  "path directory config option flag result status code index length count limit range"
).split(" ");

/** Non-ASCII text that some prose items carry (about one in seven), as real sessions do. */
const UNICODE = ["café → naïve", "✓ done", "日本語のテスト", "über — résumé", "测试通过 ✔"];

const CODE_LINES = [
  "export function handle(request: Request): Response {",
  '  const url = new URL(request.url, "http://localhost");',
  '  if (!url.pathname.startsWith("/api/")) return notFound();',
  "  for (const [key, value] of Object.entries(options)) {",
  "    console.log(`${key}=${JSON.stringify(value)}`);",
  "  }",
  "  return new Response(JSON.stringify({ ok: true }), { status: 200 });",
  "}",
  "\tat Object.<anonymous> (/work/project/src/main.ts:42:13)",
  "error: Uncaught (in promise) TypeError: Cannot read properties of undefined",
  "test result: ok. 42 passed; 0 failed; 0 ignored; finished in 1.23s",
  "drwxr-xr-x  5 dev dev  4096 Nov 30 02:48 src",
  '{"name": "turnlog", "version": "0.1.0", "exports": "./src/mod.ts"}',
];

const POOL_CHARS = 1 << 20;

/** A mebibyte of text made by `piece`. */
function fill(piece: () => string): string {
  const parts: string[] = [];
  let length = 0;
  while (length < POOL_CHARS) {
    const text = piece();
    parts.push(text);
    length += text.length;
  }
  return parts.join("");
}

/** Prose and code pools, built once from a fixed seed; what is taken from them is seeded. */
export class TextPool {
  readonly #prose: string;
  readonly #code: string;
  constructor(rng: Rng) {
    this.#prose = fill(() => {
      const sentence: string[] = [];
      const n = rng.int(5, 18);
      for (let i = 0; i < n; i++) sentence.push(rng.pick(WORDS));
      return sentence.join(" ") + (rng.chance(0.15) ? ".\n\n" : ". ");
    });
    this.#code = fill(() => rng.pick(CODE_LINES) + "\n");
  }

  /**
   * `length` characters of prose (or code) starting at a random offset; about one prose
   * item in seven carries some non-ASCII text.
   */
  take(rng: Rng, length: number, kind: "prose" | "code" = "prose"): string {
    const pool = kind === "prose" ? this.#prose : this.#code;
    let out = "";
    while (out.length < length) {
      const want = Math.min(length - out.length, pool.length);
      const at = rng.int(0, pool.length - want);
      out += pool.slice(at, at + want);
    }
    if (kind === "prose" && rng.chance(0.15)) {
      const at = rng.int(0, out.length);
      out = `${out.slice(0, at)} ${rng.pick(UNICODE)} ${out.slice(at)}`;
    }
    return out;
  }
}

let shared: TextPool | undefined;

/** The pool every generated session takes its text from (built on first use). */
export function textPool(): TextPool {
  return shared ??= new TextPool(new Rng(0x7e47));
}
