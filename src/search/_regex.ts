/**
 * The test a search's regular expression makes of a text, run by RE2 (re2js, a pure JavaScript
 * port of it): its time is linear in the text whatever the pattern, so `(a|aa)+$` or `(a+)+$`
 * answers on a long line as fast as `a+$` does, where JavaScript's backtracking engine would run
 * for ever. The syntax is JavaScript's less what needs backtracking (lookahead, backreferences),
 * which is refused before any line is read, the message naming the part.
 *
 * @module
 */
import type { RE2JS } from "re2js";

type Require = (specifier: string) => unknown;

let engine: typeof RE2JS | undefined;

/**
 * re2js, loaded the first time a pattern is compiled: a search of words never needs it, and in
 * a static import it costs every search's start its load. Required synchronously (Deno loads
 * the package through `require`, as `src/record/_schemas_lazy.ts` loads zod), so
 * `compileQuery` stays synchronous.
 */
function re2(): typeof RE2JS {
  if (engine) return engine;
  const process = (globalThis as unknown as {
    process: { getBuiltinModule(name: "node:module"): { createRequire(from: string): Require } };
  }).process;
  const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
  engine = (require("re2js") as { RE2JS: typeof RE2JS }).RE2JS;
  return engine;
}

/** A test of texts: whether one holds a match, and where its matches are. */
export interface TextTest {
  /** Whether `text` holds a match. */
  test(text: string): boolean;
  /** The non-empty matches in `text`, left to right, as `[start, end)` in UTF-16 units. */
  ranges(text: string): [number, number][];
}

/** Why a pattern cannot run: its syntax, or a part only backtracking runs. */
export class PatternError extends Error {
  /** An error about the pattern's syntax. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PatternError";
  }
}

/**
 * `source` in RE2's words where JavaScript writes a character differently: `\uFFFF` and
 * `\u{1F600}` are `\x{FFFF}` and `\x{1F600}`.
 */
function re2Source(source: string): string {
  let out = "";
  for (let at = 0; at < source.length; at++) {
    const c = source[at]!;
    if (c !== "\\") {
      out += c;
      continue;
    }
    const escape = /^u(?:([0-9A-Fa-f]{4})|\{([0-9A-Fa-f]{1,6})\})/.exec(source.slice(at + 1));
    if (escape) {
      out += `\\x{${escape[1] ?? escape[2]}}`;
      at += escape[0].length;
    } else {
      out += source.slice(at, at + 2);
      at++;
    }
  }
  return out;
}

/** RE2's refusal in words a JavaScript user knows: what only backtracking does, or bad syntax. */
function refusalOf(message: string): string {
  const said = message.replace(/^error parsing regexp: /, "").replaceAll("`(?i)", "`");
  const part = /`(\(\?[=!]|\\(?:[1-9]|k))/.exec(said)?.[1];
  if (part === undefined) return `Not a regular expression: ${said}`;
  const what = part.startsWith("(") ? "a lookahead" : "a backreference";
  return `Not a pattern search runs: \`${part}\` is ${what}, and search matches in time ` +
    `linear in the line (RE2), which has no lookahead and no backreferences`;
}

/**
 * The case-insensitive test of the regular expression `source`, in linear time.
 *
 * @throws {PatternError} when the pattern is not one RE2 runs (a syntax error, a lookahead,
 *   a backreference)
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { regexTest } from "./_regex.ts";
 * const test = regexTest("(a|aa)+$");
 * assert.equal(test.test(`${"a".repeat(100_000)}!`), false);
 * assert.deepEqual(regexTest("TODO: \\w+").ranges("x todo: fix, TODO: y"), [[2, 11], [13, 20]]);
 * assert.deepEqual(regexTest("caf\\u00e9").ranges("Café"), [[0, 4]]);
 * assert.throws(() => regexTest("a(?=b)"), /lookahead/);
 * ```
 */
export function regexTest(source: string): TextTest {
  const RE2 = re2();
  let pattern: RE2JS;
  try {
    pattern = RE2.compile(re2Source(source), RE2.CASE_INSENSITIVE | RE2.LOOKBEHINDS);
  } catch (error) {
    throw new PatternError(refusalOf((error as Error).message), { cause: error });
  }
  return {
    test: (text) => pattern.test(text),
    ranges(text) {
      const ranges: [number, number][] = [];
      const matcher = pattern.matcher(text);
      while (matcher.find()) {
        if (matcher.end() > matcher.start()) ranges.push([matcher.start(), matcher.end()]);
      }
      return ranges;
    },
  };
}
