/**
 * Codex CLI 0.169 rollouts (`history_mode: "paginated"`, an `ordinal` on every record), on
 * generated files in the shapes the real Codex 0.169.0 writes: read with its new record types
 * known, tokens from `token_usage_record` agreeing with Codex's own totals (also for a killed
 * turn and after a resume), repaired with inserted records that carry an ordinal, and imported
 * with the user's prompt first and Codex's base instructions as the first system message.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readText } from "./_formats.ts";
import { collectSession, INTERRUPTED_RESULT } from "../src/formats/mod.ts";
import { importSession } from "../src/import/mod.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import {
  PAGINATED_CONTEXT,
  PAGINATED_ID,
  PAGINATED_INSTRUCTIONS,
  paginatedClean,
  paginatedKilled,
  paginatedKilledThenResumed,
  turnlogTokens,
} from "../testing/formats/codex_paginated.ts";

const NAME = `rollout-2026-12-01T20-07-41-${PAGINATED_ID}.jsonl`;
const CLI = new URL("../cli/inspect.ts", import.meta.url).pathname;

/** Codex's own total in turnlog's terms. */
const codexTotal = turnlogTokens;

Deno.test("readForeignSession(codex) reads a 0.169 rollout: new record types known, injected context as system, tokens as Codex counts them", async () => {
  await using dir = await tempDir();
  const rollout = paginatedClean();
  const read = await readText(dir.path, NAME, rollout.text(), "codex");
  assertEquals(read.lines, [
    `1 session_meta ${PAGINATED_ID} scripted auto`,
    "3 turn_context t1 scripted auto",
    "3 system: <skills_instructions>\nSkills.\n</skills_instructions>",
    `4 system: ${PAGINATED_CONTEXT}`,
    "8 user: run `echo hi`",
    '10 call c1 exec_command {"cmd":"echo hi"}',
    "13 output c1 exec_command: Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\n" +
    "Output:\nhi\n",
    "15 assistant: It printed hi.",
    "18 run_finished t1 succeeded rounds=2",
  ]);
  assertEquals(read.facts.ignored, {});
  assertEquals(read.facts.firstPrompt, "run `echo hi`");
  assertEquals(read.facts.tokens, codexTotal(rollout.threadUsage));
  assertEquals(read.facts.tokens?.total, 19284);
});

Deno.test("readForeignSession(codex) counts a killed turn's token_usage_record, and a resume's tokens once", async () => {
  await using dir = await tempDir();
  const killed = paginatedKilled();
  const read = await readText(dir.path, `killed/${NAME}`, killed.text(), "codex");
  assertEquals(read.facts.tokens, codexTotal(killed.threadUsage));
  assertEquals([read.facts.tokens?.input, read.facts.tokens?.output], [9507, 28]);
  const resumed = paginatedKilledThenResumed();
  const again = await readText(dir.path, `resumed/${NAME}`, resumed.text(), "codex");
  // Codex's own total (thread_token_usage), not the token_count total that restarted.
  assertEquals(again.facts.tokens, codexTotal(resumed.threadUsage));
  assertEquals([again.facts.tokens?.input, again.facts.tokens?.output], [9507 + 9629, 28 + 45]);
});

async function repairWrite(path: string): Promise<string> {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, path, "--repair", "--write"],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const out = new TextDecoder().decode(ran.stdout) + new TextDecoder().decode(ran.stderr);
  assertEquals(ran.code, 0, out);
  return out;
}

/** The output line repair writes after a call line, given the call's record. */
function abortedAfter(callLine: string): string {
  const call = JSON.parse(callLine);
  return JSON.stringify({
    timestamp: call.timestamp,
    ...(call.ordinal === undefined ? {} : { ordinal: call.ordinal }),
    type: "response_item",
    payload: {
      type: "function_call_output",
      call_id: call.payload.call_id,
      output: `aborted: ${INTERRUPTED_RESULT}`,
    },
  });
}

Deno.test("repair of a killed 0.169 rollout: each inserted output carries its call's ordinal, also as the last record", async () => {
  await using dir = await tempDir();
  const lines = paginatedKilled().lines;
  // As Codex left it (the response's token_usage_record last), and cut right after the calls.
  for (const [name, kept] of [["killed", lines], ["cut", lines.slice(0, -1)]] as const) {
    const path = join(dir.path, name, NAME);
    await Deno.mkdir(join(path, ".."));
    await Deno.writeTextFile(path, kept.join("\n") + "\n");
    await repairWrite(path);
    const [c1, c2] = [kept[9]!, kept[10]!];
    const expected = [
      ...kept.slice(0, 10),
      abortedAfter(c1),
      c2,
      abortedAfter(c2),
      ...kept.slice(11),
    ];
    assertEquals((await Deno.readTextFile(path)).split("\n"), [...expected, ""]);
    assertEquals(JSON.parse(expected.at(-1)!).ordinal, JSON.parse(kept.at(-1)!).ordinal);
    await repairWrite(path);
    assertEquals((await Deno.readTextFile(path)).split("\n"), [...expected, ""]);
  }
});

Deno.test("repair of an older rollout (no ordinals) inserts no ordinal", async () => {
  await using dir = await tempDir();
  const rollout = new CodexRolloutBuilder().meta().taskStarted("t1")
    .turnContext({ turnId: "t1" }).prompt("Build it").call("o1", "exec_command", '{"cmd":"make"}');
  const path = join(
    dir.path,
    "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-000000000001.jsonl",
  );
  await Deno.writeTextFile(path, rollout.text());
  await repairWrite(path);
  const after = (await Deno.readTextFile(path)).split("\n");
  assertEquals(after, [...rollout.lines, abortedAfter(rollout.lines.at(-1)!), ""]);
  assertEquals("ordinal" in JSON.parse(after.at(-2)!), false);
});

Deno.test("importSession() of a 0.169 rollout: Codex's base instructions first, the user's prompt as the first prompt", async () => {
  await using dir = await tempDir();
  const source = join(dir.path, NAME);
  await Deno.writeTextFile(source, paginatedClean().text());
  const imported = await importSession(source, { root: join(dir.path, "sessions") });
  const { records, facts } = await collectSession(imported.path, "turnlog");
  const items = records.flatMap((record) =>
    record.type === "response_item" && record.payload.type === "message"
      ? [`${record.payload.role}: ${record.payload.content}`]
      : []
  );
  assertEquals(items, [
    `system: ${PAGINATED_INSTRUCTIONS}`,
    "system: <skills_instructions>\nSkills.\n</skills_instructions>",
    `system: ${PAGINATED_CONTEXT}`,
    "user: run `echo hi`",
    "assistant: It printed hi.",
  ]);
  assertEquals(facts.firstPrompt, "run `echo hi`");
  assertEquals(imported.items, 7);
});
