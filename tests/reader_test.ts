import { collectRecords, readRecords } from "../src/history/mod.ts";
import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readLines } from "../src/io/mod.ts";
import { SessionFileError } from "../src/record/mod.ts";
import { makeRecord } from "../src/record/mod.ts";

const user = (content: string) =>
  JSON.stringify(
    makeRecord("response_item", { type: "message", role: "user", content }, new Date(0)),
  );

async function write(dir: string, text: string | Uint8Array): Promise<string> {
  const path = `${dir}/s.jsonl`;
  if (typeof text === "string") await Deno.writeTextFile(path, text);
  else await Deno.writeFile(path, text);
  return path;
}

Deno.test("a torn last line is reported as torn, with path:line", async () => {
  await using dir = await tempDir();
  const path = await write(dir.path, `${user("a")}\n${user("b")}\n{"timestamp":"x","ty`);
  const { records, problems } = await collectRecords(path);
  assertEquals(records.length, 2);
  assertEquals(problems.map((p) => [p.line, p.kind]), [[3, "torn_tail"]]);
  assert(problems[0]!.message.startsWith(`${path}:3: torn last line`), problems[0]!.message);
});

Deno.test("a corrupt middle line is malformed JSON, not a torn tail, with path:line", async () => {
  await using dir = await tempDir();
  const path = await write(dir.path, `${user("a")}\n{"broken\n${user("c")}\n`);
  const { records, problems } = await collectRecords(path);
  assertEquals(records.length, 2);
  assertEquals(problems.map((p) => [p.line, p.kind]), [[2, "malformed_json"]]);
  assert(problems[0]!.message.startsWith(`${path}:2: not valid JSON (`), problems[0]!.message);
  const error = await assertRejects(() => collectRecords(path, { strict: true }), SessionFileError);
  assertEquals(error.message, problems[0]!.message);
});

Deno.test("unknown record types, invalid records, non-objects and two objects on a line are reported", async () => {
  await using dir = await tempDir();
  const path = await write(
    dir.path,
    [
      '{"timestamp":"t","type":"agent_event","payload":{}}',
      '{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"robot","content":"x"}}',
      "[1,2]",
      `${user("a")}${user("b")}`,
      "\u0000\u0000\u0000",
    ].join("\n") + "\n",
  );
  const { problems } = await collectRecords(path);
  assertEquals(problems.map((p) => [p.line, p.kind]), [
    [1, "unknown_type"],
    [2, "invalid_record"],
    [3, "not_an_object"],
    [4, "malformed_json"],
    [5, "malformed_json"],
  ]);
  assertEquals(
    problems[0]!.message,
    `${path}:1: unknown record type "agent_event" (expected one of session_meta, turn_context, response_item, run_finished)`,
  );
  assert(
    problems[1]!.message.startsWith(`${path}:2: invalid response_item record: payload.role`),
    problems[1]!.message,
  );
});

Deno.test("CRLF line endings, blank lines and lines longer than a chunk read correctly", async () => {
  await using dir = await tempDir();
  const long = "x".repeat(50_000);
  const path = await write(dir.path, `${user("a")}\r\n\r\n${user(long)}\r\n${user("c")}`);
  const entries = [];
  for await (const entry of readRecords(path, { chunkSize: 1024 })) entries.push(entry);
  assertEquals(entries.map((e) => e.line), [1, 3, 4]);
  assertEquals(entries.every((e) => e.record !== undefined), true);
  const lines = [];
  for await (const line of readLines(path, { chunkSize: 1024 })) lines.push(line);
  assertEquals(lines.map((l) => [l.start, l.end, l.terminated]), [
    [0, lines[0]!.text.length + 2, true],
    [lines[0]!.text.length + 2, lines[0]!.text.length + 4, true],
    [lines[2]!.start, lines[2]!.start + lines[2]!.text.length + 2, true],
    [lines[3]!.start, lines[3]!.start + lines[3]!.text.length, false],
  ]);
});

Deno.test("binary garbage is reported line by line, never thrown", async () => {
  await using dir = await tempDir();
  const bytes = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
  const path = await write(dir.path, bytes);
  const { records, problems } = await collectRecords(path);
  assertEquals(records, []);
  assert(problems.length > 0);
  assert(problems.every((p) => p.message.startsWith(`${path}:`)));
});
