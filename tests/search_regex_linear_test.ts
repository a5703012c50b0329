/**
 * Issue 39, item 11: a regex search always answers. Patterns run in RE2 (re2js), whose time is
 * linear in the line: `(a|aa)+$` and `(a+)+$`, which JavaScript's backtracking engine runs for
 * ever on a 41-character line, answer on a line of 100,000 characters; what RE2 cannot run
 * (lookahead, backreferences) is refused before any line is read, saying what.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals, assertThrows } from "./_assert.ts";
import { said, tempDir } from "./_helpers.ts";
import { compileQuery, matchRanges, SearchQueryError } from "../src/search/mod.ts";
import { createSession } from "../src/store/mod.ts";
import { makeRecord } from "../src/record/mod.ts";

const SEARCH = fileURLToPath(new URL("../cli/search.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** Patterns that backtrack exponentially in JavaScript's engine on a run of `a` not at the end. */
const EXPONENTIAL = ["(a|aa)+$", "(a+)+$", "^(\\w+\\s?)*$", "(a*)*b"];

Deno.test("compileQuery() runs patterns that backtrack exponentially in linear time", () => {
  const long = `${"a".repeat(100_000)}!`;
  for (const pattern of EXPONENTIAL) {
    const query = compileQuery({ regex: pattern });
    assertEquals(query.tests[0]!.test(long), false, pattern);
    assertEquals(query.tests[0]!.test(`${"a".repeat(40)}!`), false, pattern);
  }
  assertEquals(compileQuery({ regex: "(a|aa)+$" }).tests[0]!.test("b aaaa"), true);
  assertEquals(matchRanges(compileQuery({ regex: "(a+)+$" }), "b AAAA"), [[2, 6]]);
  assertEquals(matchRanges(compileQuery({ regex: "(a+)+!$" }), long), [[0, 100_001]]);
});

Deno.test("compileQuery() reads JavaScript's escapes and lookbehind, refuses lookahead and backreferences", () => {
  const query = compileQuery({ regex: "caf\\u00e9 \\u{1F600}|(?<=read_)file\\(" });
  assertEquals(matchRanges(query, "CAFÉ 😀 read_file(x)"), [[0, 7], [13, 18]]);
  const lookahead = assertThrows(() => compileQuery({ regex: "a(?=b)" }), SearchQueryError);
  assertEquals(
    lookahead.message,
    "Not a pattern search runs: `(?=` is a lookahead, and search matches in time linear in " +
      "the line (RE2), which has no lookahead and no backreferences",
  );
  const backreference = assertThrows(() => compileQuery({ regex: "(a)\\1" }), SearchQueryError);
  assertEquals(
    backreference.message.startsWith(
      "Not a pattern search runs: `\\1` is a backreference,",
    ),
    true,
    backreference.message,
  );
  const broken = assertThrows(() => compileQuery({ regex: "(a" }), SearchQueryError);
  assertEquals(broken.message, "Not a regular expression: missing closing ): `(a`");
  const counted = assertThrows(() => compileQuery({ regex: "a{1001}" }), SearchQueryError);
  assertEquals(counted.message, "Not a regular expression: invalid repeat count: `{1001}`");
});

Deno.test("turnlog search --regex '(a|aa)+$' over a 100,000-character line answers", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  const { writer } = await createSession(root, {
    cwd: "/w",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  });
  const line = `${"a".repeat(100_000)}!`;
  await writer.append([
    makeRecord("response_item", { type: "message", role: "user", content: line }),
    makeRecord("response_item", { type: "message", role: "user", content: "then aaaa" }),
  ]);
  writer.close();
  const run = (pattern: string) =>
    new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-q",
        `--config=${CONFIG}`,
        "-P=search",
        SEARCH,
        "--json",
        "--regex",
        pattern,
        "--sessions-dir",
        root,
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      signal: AbortSignal.timeout(60_000),
    }).output().then(said);
  for (const pattern of ["(a|aa)+$", "(a+)+$"]) {
    const found = await run(pattern);
    assertEquals(found.code, 0, found.stderr);
    const hits = found.stdout.trim().split("\n").map((text) => JSON.parse(text));
    assertEquals(hits.map((hit) => [hit.line, hit.snippet]), [[3, "then aaaa"]], pattern);
  }
  const refused = await run("a(?!b)");
  assertEquals(refused.code, 2);
  assertEquals(refused.stdout, "");
  assertEquals(
    refused.stderr.split("\n")[0],
    "turnlog search: Not a pattern search runs: `(?!` is a lookahead, and search matches in " +
      "time linear in the line (RE2), which has no lookahead and no backreferences",
  );
});
