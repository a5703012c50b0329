/**
 * Codex forks in paginated mode (0.169 and later): the fork's rollout holds only its own
 * records, and `history_base` names the thread, ordinal and byte offset its history ends
 * before. turnlog reads the fork with that history first, as Codex's resume rebuilds it:
 * wherever the parent is in the home, bounded by the base, through a fork of a fork; a parent
 * not in the home is said in the notes, and the fork's own records are still read.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { adapterFor, type CollectedSession, collectSession } from "../src/formats/mod.ts";
import { codexFactsOf } from "../src/formats/codex/mod.ts";
import { PaginatedRolloutBuilder } from "../testing/formats/codex_paginated.ts";

const PARENT = "01a24700-0000-7000-8000-000000000001";
const FORK = "01a24701-0000-7000-8000-000000000002";
const FORK2 = "01a24702-0000-7000-8000-000000000003";

/** A two-turn parent. */
function parent(): PaginatedRolloutBuilder {
  return new PaginatedRolloutBuilder({ id: PARENT }).meta().turn("p1", "run `echo hi`")
    .call("c1", "echo hi").usage(100, 10).output("c1", "hi").tokenCount(100, 10)
    .answer("It printed hi.").usage(120, 12).tokenCount(120, 12).complete("It printed hi.")
    .turn("p2", "say two", false).answer("Two.").usage(130, 5).tokenCount(130, 5)
    .complete("Two.");
}

/** A fork of `base` at its point, with one turn of its own. */
function forkOf(
  base: PaginatedRolloutBuilder,
  id: string,
  prompt: string,
  clock: number,
): PaginatedRolloutBuilder {
  return new PaginatedRolloutBuilder({ id, base: base.forkPoint(), clock }).meta()
    .turn(`${id.slice(-1)}1`, prompt, false).answer(`Answered ${prompt}.`).usage(140, 6)
    .tokenCount(140, 6).complete(`Answered ${prompt}.`);
}

async function place(root: string, day: string, id: string, text: string): Promise<string> {
  const dir = join(root, "2026", "12", day);
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, `rollout-2026-12-${day}T20-00-00-${id}.jsonl`);
  await Deno.writeTextFile(path, text);
  return path;
}

/** The conversation read: `role: text` of each message, a call's id, an output's id. */
function conversation(read: CollectedSession): string[] {
  return read.records.flatMap((record) => {
    if (record.type !== "response_item") return [];
    const item = record.payload;
    if (item.type === "message" && item.role !== "system") return [`${item.role}: ${item.content}`];
    if (item.type === "function_call") return [`call ${item.callId}`];
    if (item.type === "function_call_output") return [`output ${item.callId}`];
    return [];
  });
}

const PARENT_TALK = [
  "user: run `echo hi`",
  "call c1",
  "output c1",
  "assistant: It printed hi.",
  "user: say two",
  "assistant: Two.",
];

Deno.test("readCodexRollout() reads a paginated fork with its parent's history first, from another day's folder", async () => {
  await using dir = await tempDir();
  const before = parent();
  const parentPath = await place(dir.path, "01", PARENT, before.text());
  const fork = forkOf(before, FORK, "say three", Date.UTC(2026, 11, 2, 9));
  const forkPath = await place(dir.path, "02", FORK, fork.text());
  const read = await collectSession(forkPath, "codex");
  assertEquals(conversation(read), [
    ...PARENT_TALK,
    "user: say three",
    "assistant: Answered say three.",
  ]);
  const inherited = codexFactsOf(read.facts)?.inherited;
  assertEquals(inherited, {
    threadId: PARENT,
    endOrdinalExclusive: before.forkPoint().end_ordinal_exclusive,
    endByteOffset: before.forkPoint().end_byte_offset,
    sources: [{ threadId: PARENT, path: parentPath, lines: before.lines.length - 1 }],
    missing: null,
  });
  // The inherited entries say where they are; the fork's own are its lines.
  const sources = new Set(read.entries.map((entry) => entry.source ?? "own"));
  assertEquals([...sources].sort(), [parentPath, "own"].sort());
  assertEquals(read.facts.lines, fork.lines.length, "the fork's own lines");
  assertEquals(read.facts.turns, 3);
  assertEquals(read.facts.sessionId, FORK);
  const notes = adapterFor("codex").notes(read.facts);
  assertEquals(notes.includes(`forked from session ${PARENT}`), true);
  assertEquals(
    notes.includes(
      `${before.lines.length - 1} lines of history read from session ${PARENT} (${parentPath})`,
    ),
    true,
  );
});

Deno.test("readCodexRollout() reads a fork's parent only up to its base: the parent's later turns are not the fork's", async () => {
  await using dir = await tempDir();
  const before = parent();
  const fork = forkOf(before, FORK, "say three", Date.UTC(2026, 11, 1, 21));
  // The parent goes on after the fork: its ordinals go on from the fork point too.
  const after = before.turn("p3", "say later", false).answer("Later.").complete("Later.");
  await place(dir.path, "01", PARENT, after.text());
  const forkPath = await place(dir.path, "01", FORK, fork.text());
  const read = await collectSession(forkPath, "codex");
  assertEquals(conversation(read), [
    ...PARENT_TALK,
    "user: say three",
    "assistant: Answered say three.",
  ]);
});

Deno.test("readCodexRollout() reads a fork of a fork: the first parent whole, then the first fork up to the second's base", async () => {
  await using dir = await tempDir();
  const base = parent();
  await place(dir.path, "01", PARENT, base.text());
  const first = forkOf(base, FORK, "say three", Date.UTC(2026, 11, 1, 21));
  const second = forkOf(first, FORK2, "say four", Date.UTC(2026, 11, 1, 22));
  first.turn("f2", "say never", false).answer("Never.").complete("Never.");
  await place(dir.path, "01", FORK, first.text());
  const path = await place(dir.path, "01", FORK2, second.text());
  const read = await collectSession(path, "codex");
  assertEquals(conversation(read), [
    ...PARENT_TALK,
    "user: say three",
    "assistant: Answered say three.",
    "user: say four",
    "assistant: Answered say four.",
  ]);
  assertEquals(
    codexFactsOf(read.facts)?.inherited?.sources.map((source) => source.threadId),
    [PARENT, FORK],
  );
});

Deno.test("readCodexRollout() reads a fork whose parent is not in the home: what it holds, and a note saying what is missing", async () => {
  await using dir = await tempDir();
  const fork = forkOf(parent(), FORK, "say three", Date.UTC(2026, 11, 2, 9));
  const path = await place(dir.path, "02", FORK, fork.text());
  const read = await collectSession(path, "codex");
  assertEquals(conversation(read), ["user: say three", "assistant: Answered say three."]);
  assertEquals(read.facts.problems, 0);
  const inherited = codexFactsOf(read.facts)?.inherited;
  assertEquals(inherited?.sources, []);
  assertEquals(inherited?.missing, `the rollout of thread ${PARENT} is not in this Codex home`);
  assertEquals(
    adapterFor("codex").notes(read.facts).at(-1),
    `history before ordinal ${inherited?.endOrdinalExclusive} not read: the rollout of thread ${PARENT} is not in this Codex home; only what this file holds is shown`,
  );
});
