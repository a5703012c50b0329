/**
 * The lines a repair of another tool's session file writes, line by line (for every adapter of
 * the registry, on its fixtures by adapter name: a torn line cut, a result without its call
 * moved off, the command's dry run and --write in the tool's words; then each tool's own): a
 * result in the tool's own shape where it belongs, the next line of the branch re-parented
 * onto it, a result without its call off the branch and in the sidecar; the command line's
 * voice and exit codes; a file in use or changing meanwhile left as it was.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { inspectInProcess } from "./_cli.ts";
import { ADAPTERS, type FormatAdapter, INTERRUPTED_RESULT } from "../src/formats/mod.ts";
import { repairForeignFile, repairSession } from "../src/repair/mod.ts";
import {
  FileChangedError,
  type FileEdit,
  quarantinePath,
  rewriteFile,
  SessionInUseError,
  SessionWriter,
  stampOf,
} from "../src/store/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { CODEX_SESSION_ID, CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import {
  claudeCrashOneCall,
  claudeCrashSeveralCalls,
  claudeOrphanResult,
  claudeTornLine,
  codexCrashSeveralCalls,
  REPAIR_FIXTURES,
  type RepairFixture,
} from "../testing/formats/repair_fixtures.ts";
import { parseSidecar } from "../testing/sidecar.ts";

type Json = Record<string, unknown>;

const parse = (text: string) => text.trimEnd().split("\n").map((line) => JSON.parse(line) as Json);

async function claudeFile(dir: string, text: string): Promise<string> {
  const path = join(dir, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, text);
  return path;
}

/** The blocks of a line's message content. */
const blocks = (line: Json) => (line.message as { content: Json[] } | undefined)?.content ?? [];

Deno.test("repairSession() answers a Claude Code tool_use with a user line in Claude Code's own shape", async () => {
  await using dir = await tempDir();
  const fixture = claudeCrashOneCall();
  const path = await claudeFile(dir.path, fixture.damaged);
  await repairSession(path);
  const before = parse(fixture.damaged);
  const after = parse(await Deno.readTextFile(path));
  assertEquals(after.slice(0, before.length), before, "the lines before stay as they were");
  assertEquals(after.length, before.length + 1);
  const call = before.at(-1)!;
  const result = after.at(-1)!;
  assertEquals(Object.keys(result), [
    "parentUuid",
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "type",
    "message",
    "uuid",
    "timestamp",
    "toolUseResult",
  ]);
  for (const field of ["isSidechain", "userType", "cwd", "sessionId", "version", "gitBranch"]) {
    assertEquals(result[field], call[field], field);
  }
  assertEquals(result.parentUuid, call.uuid, "it hangs off the assistant line");
  assertEquals([result.type, result.timestamp], ["user", call.timestamp]);
  assertEquals(result.message, {
    role: "user",
    content: [{
      type: "tool_result",
      content: INTERRUPTED_RESULT,
      is_error: true,
      tool_use_id: "toolu_T",
    }],
  });
  assertEquals(result.toolUseResult, `Error: ${INTERRUPTED_RESULT}`);
  assert(!before.some((line) => line.uuid === result.uuid), "its uuid is new");
  assertMatch(String(result.uuid), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-/);
});

Deno.test("repairSession() chains the results of several Claude Code calls and re-parents the next line onto them", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeCrashSeveralCalls().damaged);
  const before = parse(await Deno.readTextFile(path));
  const { plan } = await repairSession(path);
  const after = parse(await Deno.readTextFile(path));
  const calls = before.filter((line) =>
    line.type === "assistant" && blocks(line)[0]!.type === "tool_use"
  );
  const last = calls.at(-1)!;
  const at = after.findIndex((line) => line.uuid === last.uuid);
  const results = after.slice(at + 1, at + 4);
  assertEquals(results.map((line) => blocks(line)[0]!.tool_use_id), [
    "toolu_1",
    "toolu_2",
    "toolu_3",
  ]);
  assertEquals(results.map((line) => line.parentUuid), [
    last.uuid,
    results[0]!.uuid,
    results[1]!.uuid,
  ]);
  const prompt = after[at + 4]!;
  assertEquals(prompt.message, { role: "user", content: "Are you still there?" });
  assertEquals(prompt.parentUuid, results[2]!.uuid, "the next line hangs off the last result");
  const original = before.find((line) => line.uuid === prompt.uuid)!;
  assertEquals(original.parentUuid, last.uuid);
  assertEquals({ ...prompt, parentUuid: original.parentUuid }, original, "only its parent changes");
  assertEquals(plan.rewritten.map((line) => [line.line, line.kind]), [[12, "reparented"]]);
  const sidecar = await Deno.readTextFile(quarantinePath(path));
  assertMatch(
    sidecar,
    /^# turnlog quarantine: line 12, reparented, \d+ bytes, from byte \d+, sha256 /,
  );
  assertEquals(sidecar.split("\n")[1], JSON.stringify(original), "the original is in the sidecar");
});

Deno.test("repairSession() takes a Claude Code result without its call off the branch: to the sidecar, its child re-linked", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeOrphanResult().damaged);
  const before = parse(await Deno.readTextFile(path));
  const { plan } = await repairSession(path);
  const after = parse(await Deno.readTextFile(path));
  const ghost = before.find((line) => blocks(line)[0]?.tool_use_id === "toolu_ghost")!;
  assert(!after.some((line) => line.uuid === ghost.uuid), "the line leaves the file");
  const thanks = after.find((line) => (line.message as Json | undefined)?.content === "Thanks")!;
  assertEquals(thanks.parentUuid, ghost.parentUuid, "its child hangs off its parent now");
  assertEquals(plan.moved.map((m) => [m.line, m.kind]), [[7, "orphan_output"]]);
  assertEquals(plan.rewritten.map((m) => [m.line, m.kind]), [[8, "reparented"]]);
  const kept = (await Deno.readTextFile(quarantinePath(path))).split("\n");
  assertEquals([kept[1], kept[3]], [
    JSON.stringify(ghost),
    JSON.stringify(before.find((line) => line.uuid === thanks.uuid)),
  ]);
});

Deno.test("repairSession() writes Codex's aborted outputs right after each call, in Codex's shape", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, codexCrashSeveralCalls().damaged);
  const before = parse(await Deno.readTextFile(path));
  await repairSession(path);
  const after = parse(await Deno.readTextFile(path));
  const at = (id: string) => after.findIndex((line) => (line.payload as Json).call_id === id);
  const aborted = `aborted: ${INTERRUPTED_RESULT}`;
  assertEquals(after[at("o1") + 1], {
    timestamp: after[at("o1")]!.timestamp,
    type: "response_item",
    payload: { type: "function_call_output", call_id: "o1", output: aborted },
  });
  assertEquals(after[at("o2") + 1], {
    timestamp: after[at("o2")]!.timestamp,
    type: "response_item",
    payload: { type: "custom_tool_call_output", call_id: "o2", output: aborted },
  });
  assertEquals(after.filter((_, i) => i !== at("o1") + 1 && i !== at("o2") + 1), before);
});

Deno.test("cli: inspect --repair on a Claude Code transcript: the dry run exits 1, --write 0, again 0 with nothing to do", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeCrashOneCall().damaged);
  const before = await Deno.readFile(path);
  const dry = await inspectInProcess(["--repair", path]);
  assertEquals([dry.code, dry.stderr], [1, ""]);
  assertEquals(
    dry.stdout,
    [
      `Repair plan for ${path} (dry run: nothing changed; add --write to do it)`,
      "What Claude Code needs and the file lacks:",
      `  ${path}:9: tool_use toolu_T (Bash) has no tool_result in the next message (the branch ends there): the API answers 400 to every request`,
      "  1. write after line 9 a result for toolu_T (Bash, the call at line 9): an error saying the call was interrupted and its result is unknown",
      "  2. rewrite the session with that change: a temp file in the same folder, fsynced, renamed over it in one step",
      "Close Claude Code on this session first: --write leaves a file that changes meanwhile as it was.",
      "",
    ].join("\n"),
  );
  assertEquals(await Deno.readFile(path), before);
  const write = await inspectInProcess(["--repair", "--write", path]);
  assertEquals([write.code, write.stderr], [0, ""]);
  assertMatch(write.stdout, /^Repaired .*\n {2}1\. wrote after line 9 a result for toolu_T /);
  assertMatch(
    write.stdout,
    /\nClaude Code's check passes: every call answered, every result asked for\.\n/,
  );
  assertMatch(
    write.stdout,
    /\nUndo \(docs\/other-tools\.md\): delete the lines that say "written by turnlog repair"\.\n/,
  );
  assertMatch(write.stdout, /\nThe session is healthy now: /);
  const again = await inspectInProcess(["--repair", "--write", "--json", path]);
  assertEquals(again.code, 0);
  const json = JSON.parse(again.stdout);
  assertEquals([json.written, json.plan.inserted, json.validation.valid], [true, [], true]);
  const shown = await inspectInProcess([path]);
  assertEquals(shown.code, 0, "the inspector finds it healthy");
});

Deno.test("repairForeignFile() leaves a file that changes meanwhile as it was, and says to close the tool", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeCrashOneCall().damaged);
  const appended = claudeCrashOneCall().damaged + '{"type":"queue-operation"}\n';
  await assertRejects(
    () =>
      repairForeignFile(path, "claude-code", {
        beforeWrite: () => Deno.writeTextFile(path, appended),
      }),
    FileChangedError,
    `${path} changed while it was being repaired (its size or modification time): it is left ` +
      "as it was; close the program that writes it first",
  );
  assertEquals(await Deno.readTextFile(path), appended);
  const names = [...Deno.readDirSync(dir.path)].map((entry) => entry.name);
  assertEquals(names, [`${CLAUDE_SESSION_ID}.jsonl`], "no sidecar, no temp file");
});

Deno.test("rewriteFile() refuses before the rename when the file changed, and removes its temp file", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "file.jsonl");
  await Deno.writeTextFile(path, "a\nb\n");
  const stale = stampOf(await Deno.stat(path));
  await Deno.writeTextFile(path, "a\nb\nc\n");
  const edits: FileEdit[] = [{ start: 2, end: 4, text: "B\n" }];
  await assertRejects(() => rewriteFile(path, edits, { unchanged: stale }), FileChangedError);
  assertEquals(await Deno.readTextFile(path), "a\nb\nc\n");
  assertEquals([...Deno.readDirSync(dir.path)].map((entry) => entry.name), ["file.jsonl"]);
  await Deno.chmod(path, 0o600);
  (await rewriteFile(path, edits, { unchanged: stampOf(await Deno.stat(path)) })).close();
  assertEquals(await Deno.readTextFile(path), "a\nB\nc\n");
  assertEquals((await Deno.stat(path)).mode! & 0o777, 0o600, "the file keeps its permissions");
});

Deno.test("repairSession() on another tool's file a turnlog run holds: in use, nothing written", async () => {
  await using dir = await tempDir();
  const fixture = claudeCrashOneCall();
  const path = await claudeFile(dir.path, fixture.damaged);
  using _held = await SessionWriter.open(path, { seal: false });
  const cli = await inspectInProcess(["--repair", "--write", path]);
  assertEquals(cli.code, 1);
  assertMatch(cli.stderr, /^turnlog inspect: Session is in use: another run holds the lock on /);
  await assertRejects(() => repairSession(path), SessionInUseError);
  assertEquals(await Deno.readTextFile(path), fixture.damaged);
});

/**
 * Runs `work` with the rename onto `path` and every ftruncate slowed down, and `during` run in
 * that delay: a tool appending while repair replaces or cuts the file.
 */
async function withSlowReplace<T>(
  path: string,
  during: () => Promise<void>,
  work: () => Promise<T>,
): Promise<T> {
  const rename = Deno.rename;
  const truncate = Deno.FsFile.prototype.truncate;
  const slow = async () => {
    await during();
    await new Promise((done) => setTimeout(done, 50));
  };
  Deno.rename = async (from, to) => {
    if (to === path) await slow();
    return await rename(from, to);
  };
  Deno.FsFile.prototype.truncate = async function (length?: number) {
    await slow();
    return await truncate.call(this, length);
  };
  try {
    return await work();
  } finally {
    Deno.rename = rename;
    Deno.FsFile.prototype.truncate = truncate;
  }
}

const REPLACED = [["a crash (rewrite)", claudeCrashOneCall], ["a torn line (cut)", claudeTornLine]];
for (const [name, fixture] of REPLACED as [string, () => { damaged: string }][]) {
  Deno.test(`repairForeignFile() of ${name} keeps the lines the tool appends while the file is replaced`, async () => {
    await using dir = await tempDir();
    const path = await claudeFile(dir.path, fixture().damaged);
    const line = '{"type":"queue-operation","operation":"enqueue"}\n';
    let appends = 0;
    await withSlowReplace(
      path,
      async () => {
        if (appends++ === 0) await Deno.writeTextFile(path, line, { append: true });
      },
      () => repairForeignFile(path, "claude-code"),
    );
    assertEquals(appends > 0, true, "the file was replaced or cut");
    const text = await Deno.readTextFile(path);
    assert(text.endsWith(line), text.slice(-300));
    assertEquals(text.indexOf(line), text.lastIndexOf(line));
  });
}

Deno.test("a Codex rollout with a function_call line copied: inspect and the plan agree, repair moves the copy, once", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`);
  const b = new CodexRolloutBuilder().meta().turnContext({ turnId: "t1" }).taskStarted("t1")
    .prompt("ls").call("c1");
  const clean = new CodexRolloutBuilder().meta().turnContext({ turnId: "t1" }).taskStarted("t1")
    .prompt("ls").call("c1").output("c1", "a.txt").answer("Done.").taskComplete("t1").text();
  b.raw(b.lines.at(-1)!).output("c1", "a.txt").answer("Done.").taskComplete("t1");
  await Deno.writeTextFile(path, b.text());
  assertEquals(
    (await inspectInProcess([path])).code,
    1,
    "inspect finds the copy's call unanswered",
  );
  const plan = await inspectInProcess(["--repair", path]);
  assertEquals(plan.code, 1);
  assertMatch(plan.stdout, /1\. move line 7 \(duplicate_call, \d+ bytes\) to the sidecar/);
  assertEquals((await inspectInProcess(["--repair", "--write", path])).code, 0);
  assertEquals(await Deno.readTextFile(path), clean);
  assertEquals((await inspectInProcess([path])).code, 0);
  assertMatch((await inspectInProcess(["--repair", path])).stdout, /^Nothing to repair in /);
});

/** The file name each tool gives a session, by adapter name. */
const FILE_NAMES: Record<string, string> = {
  "claude-code": `${CLAUDE_SESSION_ID}.jsonl`,
  codex: `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`,
  gemini: "session-2026-12-01T10-00-5a7e0c1d.jsonl",
};

/** The adapter's torn-line and orphan-result fixtures and its file name; throws without them. */
function lineFixturesOf(adapter: FormatAdapter, table: Record<string, Fixtures> = REPAIR_FIXTURES) {
  const fixtures = table[adapter.name];
  const name = FILE_NAMES[adapter.name];
  if (!fixtures?.torn_line || !fixtures.orphan_result || name === undefined) {
    throw new Error(`The adapter ${adapter.name} has no torn_line and orphan_result fixtures`);
  }
  return { torn: fixtures.torn_line(), orphan: fixtures.orphan_result(), name };
}

type Fixtures = Record<string, () => RepairFixture>;

for (const adapter of ADAPTERS) {
  Deno.test(`repairSession() cuts a ${adapter.tool} file's torn last line: the file ends on its last whole line, the sidecar holds the torn bytes`, async () => {
    await using dir = await tempDir();
    const { torn, name } = lineFixturesOf(adapter);
    const path = join(dir.path, name);
    await Deno.writeTextFile(path, torn.damaged);
    const { plan } = await repairSession(path);
    const line = torn.clean.split("\n").length;
    assertEquals(plan.moved.map((m) => [m.line, m.kind]), [[line, "torn_tail"]]);
    assertEquals([plan.inserted, plan.rewritten], [[], []]);
    assertEquals(await Deno.readTextFile(path), torn.clean);
    const kept = parseSidecar(await Deno.readFile(quarantinePath(path)));
    assertEquals(
      kept.map((entry) => [entry.start, new TextDecoder().decode(entry.bytes)]),
      [[new TextEncoder().encode(torn.clean).length, torn.damaged.slice(torn.clean.length)]],
    );
  });

  Deno.test(`repairSession() takes a ${adapter.tool} result without its call off the file into the sidecar, byte for byte`, async () => {
    await using dir = await tempDir();
    const { orphan, name } = lineFixturesOf(adapter);
    const path = join(dir.path, name);
    await Deno.writeTextFile(path, orphan.damaged);
    const { plan } = await repairSession(path);
    const lines = orphan.damaged.split("\n");
    assertEquals(plan.moved.map((m) => m.kind), ["orphan_output"]);
    const at = plan.moved[0]!.line;
    const kept = parseSidecar(await Deno.readFile(quarantinePath(path)));
    assertEquals(new TextDecoder().decode(kept[0]!.bytes), lines[at - 1]);
    const after = await Deno.readTextFile(path);
    assert(!after.split("\n").includes(lines[at - 1]!), "the line leaves the file");
  });

  Deno.test(`cli: inspect --repair on a ${adapter.tool} file with a torn line: the dry run exits 1, --write 0 in ${adapter.shortTool}'s words, again nothing to do`, async () => {
    await using dir = await tempDir();
    const { torn, name } = lineFixturesOf(adapter);
    const path = join(dir.path, name);
    await Deno.writeTextFile(path, torn.damaged);
    const dry = await inspectInProcess(["--repair", path]);
    assertEquals([dry.code, dry.stderr], [1, ""]);
    assertMatch(
      dry.stdout,
      /^Repair plan for .* \(dry run: nothing changed; add --write to do it\)\n/,
    );
    assertEquals(await Deno.readTextFile(path), torn.damaged, "the dry run writes nothing");
    const write = await inspectInProcess(["--repair", "--write", path]);
    assertEquals([write.code, write.stderr], [0, ""]);
    assertMatch(
      write.stdout,
      new RegExp(`\\n${adapter.shortTool}'s check passes: every call answered`),
    );
    const again = await inspectInProcess(["--repair", path]);
    assertEquals(again.code, 0);
    assertMatch(again.stdout, /^Nothing to repair in /);
  });
}

Deno.test("repairSession() line fixtures: an adapter without them fails", () => {
  const adapter = ADAPTERS[0]!;
  const { [adapter.name]: _left, ...without } = REPAIR_FIXTURES as Record<string, Fixtures>;
  let message = "";
  try {
    lineFixturesOf(adapter, without);
  } catch (error) {
    message = (error as Error).message;
  }
  assertEquals(message, `The adapter ${adapter.name} has no torn_line and orphan_result fixtures`);
});
