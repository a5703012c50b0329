/**
 * Issue 39, item 11: a regex search always answers. A pattern that can backtrack exponentially
 * on one line (a repetition inside a repeated group, `(a+)+$`) is given up before any line is
 * read, the message saying what was given up and how to write it; every other pattern runs.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals, assertThrows } from "./_assert.ts";
import { said, tempDir } from "./_helpers.ts";
import { compileQuery, nestedRepetition, SearchQueryError } from "../src/search/mod.ts";
import { createSession } from "../src/store/mod.ts";
import { makeRecord } from "../src/record/mod.ts";

const SEARCH = fileURLToPath(new URL("../cli/search.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

Deno.test("nestedRepetition() finds a repetition inside a repeated group, and nothing else", () => {
  const nested: [string, string, string][] = [
    ["(a+)+$", "(a+)+", "a+"],
    ["(a*)*b", "(a*)*", "a*"],
    ["^(\\w+\\s?)*$", "(\\w+\\s?)*", "\\w+"],
    ["x(?:[a-z]+,)+y", "(?:[a-z]+,)+", "[a-z]+"],
    ["((ab)+)+", "((ab)+)+", "(ab)+"],
    ["(a{2,})+", "(a{2,})+", "a{2,}"],
    ["(.*a){3,}", "(.*a){3,}", ".*"],
  ];
  for (const [source, group, inner] of nested) {
    assertEquals(nestedRepetition(source), { group, inner }, source);
  }
  const fine = [
    "read_file",
    "(ab)+c",
    "a+b+",
    "(a|b)c*",
    "[(a+)+]",
    "\\(a+\\)+",
    "(a+){2}",
    "(x)?y+",
  ];
  for (const source of fine) assertEquals(nestedRepetition(source), undefined, source);
});

Deno.test("compileQuery() gives up (a+)+$ at once, saying what and how to write it", () => {
  const started = performance.now();
  const error = assertThrows(() => compileQuery({ regex: "(a+)+$" }), SearchQueryError);
  assertEquals(
    error.message,
    "The pattern is given up before any line is read: its group (a+)+ repeats a+, which can " +
      "take exponential time on one short line; write it without a repetition inside a " +
      "repeated group (a+ alone, or a class such as [a-z]+)",
  );
  assertEquals(performance.now() - started < 1000, true);
  const query = compileQuery({ regex: "a+!$" });
  assertEquals(query.tests[0]!.test(`${"a".repeat(40)}!`), true);
});

Deno.test("turnlog search --regex '(a+)+$' over a 41-character line answers, exit 2", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "sessions");
  const { writer } = await createSession(root, {
    cwd: "/w",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  });
  const line = `${"a".repeat(40)}!`;
  await writer.append([
    makeRecord("response_item", { type: "message", role: "user", content: line }),
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
        "--regex",
        pattern,
        "--sessions-dir",
        root,
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      signal: AbortSignal.timeout(60_000),
    }).output().then(said);
  const refused = await run("(a+)+$");
  assertEquals(refused.code, 2);
  assertEquals(refused.stdout, "");
  assertEquals(
    refused.stderr.split("\n")[0]!.startsWith(
      "turnlog search: The pattern is given up before any line is read: its group (a+)+ repeats a+",
    ),
    true,
    refused.stderr,
  );
  const found = await run("^a+!$");
  assertEquals(found.code, 0, found.stderr);
  assertEquals(found.stdout.includes(line), true, found.stdout);
});
