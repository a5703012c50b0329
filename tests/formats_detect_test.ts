import { collectRecords } from "../src/history/mod.ts";
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { countIo } from "../testing/io_counter.ts";
import { tempDir } from "./_helpers.ts";
import {
  collectSession,
  detectFormat,
  detectSessionsRoot,
  ForeignSessionError,
  type FormatDetection,
  openSessionFile,
  readForeignSession,
} from "../src/formats/mod.ts";
import { claudeProjectsRoot } from "../src/formats/claude_code/mod.ts";
import { codexSessionsRoot } from "../src/formats/codex/mod.ts";
import { generateSessionText } from "../testing/generate/mod.ts";
import { codexDamage, codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { claudeBasic, writeClaudeProject } from "../testing/formats/claude_fixtures.ts";
import { assertRejects } from "./_assert.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { repairForeignFile } from "../src/repair/mod.ts";

const stateOf = (detected: FormatDetection) =>
  "state" in detected ? detected.state : detected.reason;

async function write(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, text);
  return path;
}

Deno.test("detectFormat() tells turnlog, Codex and Claude Code files by their first lines", async () => {
  await using dir = await tempDir();
  const turnlog = await write(dir.path, "t.jsonl", generateSessionText(1, { damage: false }).text);
  const codex = await write(dir.path, "c.jsonl", codexTurnIds());
  const claude = await write(dir.path, "k.jsonl", claudeBasic());
  assertEquals(await detectFormat(turnlog), {
    format: "turnlog",
    state: "records",
    line: 1,
    evidence: "a turnlog session_meta record",
  });
  assertEquals(await detectFormat(codex), {
    format: "codex",
    state: "records",
    line: 1,
    evidence: "a Codex session_meta line",
  });
  // Lines 1 and 2 are a queue operation and a file-history snapshot: metadata, read on.
  assertEquals(await detectFormat(claude), {
    format: "claude-code",
    state: "records",
    line: 3,
    evidence: "a Claude Code progress line",
  });
});

Deno.test("detectFormat() tells empty and metadata-only files, not unknown", async () => {
  await using dir = await tempDir();
  const project = await writeClaudeProject(dir.path);
  assertEquals(await detectFormat(project.empty), {
    format: "claude-code",
    state: "empty",
    line: null,
    evidence: "an empty file named like a Claude Code transcript",
  });
  assertEquals(await detectFormat(project.metadataOnly), {
    format: "claude-code",
    state: "metadata-only",
    line: 1,
    evidence: "a Claude Code summary line",
  });
  const rollout = await write(
    dir.path,
    "s/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
    "",
  );
  assertEquals((await detectFormat(rollout)).format, "codex");
  const notes = await write(dir.path, "notes.jsonl", "\n\n");
  assertEquals(await detectFormat(notes), {
    format: "unknown",
    reason: `${notes}: empty file, and its name does not tell which tool wrote it`,
  });
});

Deno.test("detectFormat() gives one reason for a file in no known format", async () => {
  await using dir = await tempDir();
  const text = await write(dir.path, "a.jsonl", "hello\nworld\n".repeat(100));
  assertEquals(await detectFormat(text), {
    format: "unknown",
    reason: `${text}: not a session file: line 1 is not JSON`,
  });
  const other = await write(dir.path, "b.jsonl", '{"type":"event","data":1}\n'.repeat(50));
  assertEquals(await detectFormat(other), {
    format: "unknown",
    reason:
      `${other}: not a session file: line 1 is a JSON object of type "event", not a turnlog, Codex, Claude Code or Gemini line`,
  });
  const error = await assertRejects(() => openSessionFile(other), ForeignSessionError);
  assertEquals(error.message, (await detectFormat(other) as { reason: string }).reason);
});

Deno.test("detectFormat() passes over a bad first line and reads only the head", async () => {
  await using dir = await tempDir();
  const torn = await write(dir.path, "torn.jsonl", '{"broken\n' + codexTurnIds());
  assertEquals(await detectFormat(torn), {
    format: "codex",
    state: "records",
    line: 2,
    evidence: "a Codex session_meta line",
  });
  // One line longer than the head: nothing complete to judge by.
  const long = await write(
    dir.path,
    "long.jsonl",
    JSON.stringify({ type: "user", x: "y".repeat(70000) }) + "\n",
  );
  assertEquals(await detectFormat(long), {
    format: "unknown",
    reason: `${long}: no complete line in the first 65536 bytes`,
  });
  // Titles only in the head of a longer file: a transcript, not metadata-only.
  const summary = JSON.stringify({ type: "summary", summary: "t", leafUuid: "x" }) + "\n";
  const titled = await write(dir.path, "titled.jsonl", summary.repeat(2000));
  using io = countIo();
  assertEquals(stateOf(await detectFormat(titled)), "records");
  const counts = io.take();
  assertEquals(counts.filesOpened, 1);
  // The head, and one byte more to know whether the file goes on.
  assert(
    counts.bytesRead <= 64 * 1024 + 1,
    `read ${counts.bytesRead} of ${summary.length * 2000} bytes`,
  );
  assertEquals(stateOf(await detectFormat(titled, { headBytes: 1 << 20 })), "metadata-only");
});

Deno.test("readForeignSession() reports bad lines with the kinds and messages of turnlog's reader", async () => {
  await using dir = await tempDir();
  const path = await write(dir.path, "damaged.jsonl", codexDamage());
  const session = readForeignSession(path, "codex");
  const problems = [];
  for await (const entry of session) if (entry.problem) problems.push(entry.problem);
  // turnlog's reader on the same bytes: the lines bad as JSON get the very same problems.
  const own = (await collectRecords(path)).problems.filter((p) =>
    p.kind !== "unknown_type" && p.kind !== "invalid_record"
  );
  assertEquals(problems.filter((p) => p.kind !== "unknown_type"), own);
  assertEquals(problems.map((p) => [p.line, p.kind]), [
    [6, "malformed_json"],
    [7, "malformed_json"],
    [9, "unknown_type"],
    [12, "torn_tail"],
  ]);
  assertEquals(
    problems[3]!.message,
    `${path}:12: torn last line (16 characters without a final newline, not valid JSON): an append was cut off`,
  );
  assertEquals(session.facts.problems, 4);
});

Deno.test("ForeignSession.facts is known only once the entries are read, and entries only once", async () => {
  await using dir = await tempDir();
  const path = await write(dir.path, "c.jsonl", codexTurnIds());
  const session = readForeignSession(path, "codex");
  const early = await assertRejects(
    () => Promise.resolve().then(() => session.facts),
    ForeignSessionError,
  );
  assertEquals(
    early.message,
    `Facts of ${path} are not known yet: read its entries to the end first`,
  );
  for await (const _ of session) { /* read */ }
  assertEquals(session.facts.turns, 2);
  const again = await assertRejects(async () => {
    for await (const _ of session) { /* read */ }
  }, ForeignSessionError);
  assertEquals(again.message, `Entries of ${path} can be read only once`);
});

Deno.test("collectSession() reads turnlog's own files through the same interface", async () => {
  await using dir = await tempDir();
  const generated = generateSessionText(3, { damage: false, turns: 3 });
  const path = await write(dir.path, "t.jsonl", generated.text);
  const { records, facts } = await collectSession(path);
  assertEquals(records, (await collectRecords(path)).records);
  assertEquals([facts.format, facts.turns, facts.state, facts.sessionId], [
    "turnlog",
    3,
    "records",
    generated.id,
  ]);
});

Deno.test("detectSessionsRoot() tells a Codex tree, a turnlog store and a Claude projects folder from names", async () => {
  await using dir = await tempDir();
  await write(
    dir.path,
    "codex/sessions/2026/02/23/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
    "",
  );
  await write(
    dir.path,
    "store/2026/11/30/2026-11-30T09-00-00-000Z-019ad3c0-0000-7000-8000-000000000000.jsonl",
    "",
  );
  await writeClaudeProject(join(dir.path, "claude", "projects"));
  const codexHome = join(dir.path, "codex");
  assertEquals(await detectSessionsRoot(codexHome), {
    format: "codex",
    root: join(codexHome, "sessions"),
  });
  assertEquals(await detectSessionsRoot(join(dir.path, "store")), {
    format: "turnlog",
    root: join(dir.path, "store"),
  });
  assertEquals(await detectSessionsRoot(join(dir.path, "claude")), {
    format: "claude-code",
    root: join(dir.path, "claude", "projects"),
  });
  assertEquals(await detectSessionsRoot(join(dir.path, "nowhere")), undefined);
});

Deno.test("codexSessionsRoot() and claudeProjectsRoot() follow CODEX_HOME and CLAUDE_CONFIG_DIR, else the home", () => {
  const env = (vars: Record<string, string>) => ({ get: (name: string) => vars[name] });
  assertEquals(codexSessionsRoot(env({ HOME: "/home/u" })), "/home/u/.codex/sessions");
  assertEquals(codexSessionsRoot(env({ HOME: "/home/u", CODEX_HOME: "/x" })), "/x/sessions");
  assertEquals(claudeProjectsRoot(env({ HOME: "/home/u" })), "/home/u/.claude/projects");
  assertEquals(claudeProjectsRoot(env({ CLAUDE_CONFIG_DIR: "/y" })), "/y/projects");
});

Deno.test("ForeignSession closes its file when the reader stops early", async () => {
  await using dir = await tempDir();
  const path = await write(dir.path, "c.jsonl", codexTurnIds());
  const claude = await write(dir.path, "k.jsonl", claudeBasic());
  using io = countIo();
  for (
    const [file, format] of [[path, "codex"], [claude, "claude-code"], [path, "turnlog"]] as const
  ) {
    const session = readForeignSession(file, format);
    for await (const _ of session) break;
  }
  const counts = io.take();
  assert(counts.filesOpened >= 3, `opened ${counts.filesOpened}`);
  assertEquals(counts.filesClosed, counts.filesOpened);
});

Deno.test("detectFormat() tells a Claude Code file of two lines glued into one, and repair splits it", async () => {
  await using dir = await tempDir();
  const b = new ClaudeTranscriptBuilder();
  b.user("List the files");
  b.assistant([{ text: "There is a.txt." }], { stop: "end_turn" });
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, b.lines.join("") + "\n");
  const detected = await detectFormat(path);
  assertEquals(
    [detected.format, "evidence" in detected && detected.evidence],
    ["claude-code", "a Claude Code user line (glued)"],
  );
  const { plan, validation } = await repairForeignFile(path, "claude-code");
  assertEquals([plan.refused, plan.moved.map((m) => m.split?.length)], [null, [2]]);
  assertEquals(validation?.valid, true);
  assertEquals(await Deno.readTextFile(path), b.text());
});
