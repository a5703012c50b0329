import fc from "fast-check";
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { parseFlags, UsageError } from "../cli/_args.ts";

// The flags of a command: booleans and strings, long and short, one string taken many times.
const OPTIONS = {
  help: { type: "boolean", short: "h" },
  json: { type: "boolean" },
  "no-catalog": { type: "boolean" },
  verbose: { type: "boolean", short: "v" },
  limit: { type: "string" },
  session: { type: "string", short: "s" },
  "sessions-dir": { type: "string", multiple: true },
} as const;

// Every shape node's parser tells apart: lone and grouped shorts (a string among them),
// inline values, `--`, a lone `-`, unknown and misused flags, values that look like flags.
const ARGS = [
  "-h",
  "-v",
  "-s",
  "-hv",
  "-hs",
  "-vsx",
  "-sh",
  "-x",
  "-hx",
  "-5",
  "-",
  "--",
  "---",
  "--=",
  "--=a=b",
  "--json",
  "--json=1",
  "--limit",
  "--limit=",
  "--limit=-3",
  "--no-catalog",
  "--sessions-dir",
  "--sessions-dir=a",
  "--unknown",
  "--Limit",
  "--__proto__",
  "--toString",
  "--a. B",
  "a",
  "b c",
  "-1",
  "--help",
];

/** node:util's parse with the message cut as the CLIs cut it before (its first sentence). */
function node(argv: string[]) {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: OPTIONS,
      allowPositionals: true,
      strict: true,
    });
    return { values: { ...values }, positionals };
  } catch (error) {
    const message = (error as Error).message.split("\n")[0]!.split(/\. (?=[A-Z])/)[0]!;
    return { error: message.replace(/\.$/, "") };
  }
}

function ours(argv: string[]) {
  try {
    const { values, positionals } = parseFlags(argv, OPTIONS);
    return { values: { ...values }, positionals };
  } catch (error) {
    assert.ok(error instanceof UsageError);
    return { error: error.message };
  }
}

Deno.test("parseFlags() gives node:util parseArgs's values, positionals and errors", () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...ARGS), { maxLength: 6 }), (argv) => {
      assert.deepEqual(ours(argv), node(argv));
    }),
    { numRuns: 5000 },
  );
});

Deno.test("parseFlags() says which flag is wrong, in one sentence", () => {
  assert.deepEqual(ours(["--limit"]), { error: "Option '--limit <value>' argument missing" });
  assert.deepEqual(ours(["--limit", "-3"]), { error: "Option '--limit' argument is ambiguous" });
  assert.deepEqual(ours(["-hx"]), { error: "Unknown option '-x'" });
  assert.deepEqual(ours(["--json=1"]), { error: "Option '--json' does not take an argument" });
  assert.deepEqual(ours(["-s"]), { error: "Option '-s, --session <value>' argument missing" });
  assert.deepEqual(ours(["-hsx", "--sessions-dir=a", "--sessions-dir", "b", "--", "--json"]), {
    values: { help: true, session: "x", "sessions-dir": ["a", "b"] },
    positionals: ["--json"],
  });
});
