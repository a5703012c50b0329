import {
  compactHistory,
  DEFAULT_CONTEXT_WINDOW,
  defaultCompactThreshold,
  estimateTokens,
  InvalidThresholdError,
  makeCheckpoint,
  renderHistoryForSummary,
  resolveCompactThreshold,
  shouldCompact,
  SUMMARY_INSTRUCTIONS,
  summaryRequestItems,
  THRESHOLD_FRACTION,
} from "../src/compaction/mod.ts";
import { CHECKPOINT_VERSION, type ResponseItem, responseItemRecord } from "../src/record/mod.ts";
import { collectRecords, replayHistory } from "../src/history/mod.ts";
import { initializeSessionForRun, loadSession, resumeSession } from "../src/resume/mod.ts";
import { assert, assertEquals, assertStrictEquals, assertThrows } from "./_assert.ts";
import {
  assistant,
  call,
  fileLines,
  finished,
  itemRecords,
  output,
  RUN_BASE,
  tempDir,
  user,
} from "./_helpers.ts";

const system: ResponseItem = { type: "message", role: "system", content: "You are careful." };

/** system, then `rounds` of user + call + output + assistant. */
function conversation(rounds: number): ResponseItem[] {
  const items: ResponseItem[] = [system];
  for (let i = 0; i < rounds; i++) {
    items.push(
      user(`request ${i}`),
      call(`c${i}`),
      output(`c${i}`, "read_file", `contents ${i}`),
      assistant(`done ${i}`),
    );
  }
  return items;
}

Deno.test("shouldCompact: below the threshold nothing happens", () => {
  const decision = shouldCompact({
    usage: { inputTokens: 7000, outputTokens: 999, totalTokens: 7999 },
    threshold: 8000,
    history: conversation(5),
  });
  assertEquals(decision.compact, false);
  assertEquals(decision.reason, "below_threshold");
  assertStrictEquals(decision.message, "7999 tokens is below the compaction threshold of 8000");
});

Deno.test("shouldCompact: at or above the threshold with history to remove, compact", () => {
  const decision = shouldCompact({ usage: 8000, threshold: 8000, history: conversation(2) });
  assertEquals(decision.compact, true);
  assertEquals(decision.reason, "token_threshold");
  assertStrictEquals(decision.tokens, 8000);
  // 9 items: system, the first user and the turn in flight (4) stay; the first turn's call,
  // output and answer go.
  assert(decision.message.includes("3 of 9 items can go"), decision.message);
});

Deno.test("shouldCompact: too little history to gain anything; the turn in flight is not removable", () => {
  const history = [system, user("a huge paste ".repeat(100))];
  const decision = shouldCompact({ usage: 50_000, threshold: 8000, history });
  assertEquals(decision.compact, false);
  assertEquals(decision.reason, "too_little_history");
  // The turn in flight stays whole, its calls and outputs too: nothing to remove.
  const inFlight = shouldCompact({
    usage: 50_000,
    threshold: 8000,
    history: [...history, call("c1"), output("c1"), assistant("ok")],
  });
  assertEquals(inFlight.reason, "too_little_history");
  // One removable item: a summary would replace it one for one.
  const one = shouldCompact({
    usage: 50_000,
    threshold: 8000,
    history: [...history, assistant("ok"), user("next")],
  });
  assertEquals(one.reason, "too_little_history");
  const three = shouldCompact({
    usage: 50_000,
    threshold: 8000,
    history: [...history, call("c1"), output("c1"), assistant("ok"), user("next")],
  });
  assertEquals(three.compact, true);
});

Deno.test("shouldCompact: no usage reported, and a custom threshold", () => {
  assertEquals(
    shouldCompact({ usage: undefined, threshold: 1, history: conversation(3) }).reason,
    "no_usage",
  );
  const history = conversation(3);
  assertEquals(shouldCompact({ usage: 600, threshold: 500, history }).compact, true);
  assertEquals(shouldCompact({ usage: 600, threshold: 700, history }).compact, false);
  assertEquals(
    shouldCompact({ usage: 600, threshold: 500, history, minRemovedItems: 100 }).reason,
    "too_little_history",
  );
});

Deno.test("thresholds: a share of the model's window, an unknown model gets the default, the override wins", () => {
  assertStrictEquals(defaultCompactThreshold("gpt-4o-mini"), 96_000);
  assertStrictEquals(defaultCompactThreshold("openai/gpt-4.1-mini"), 785_682);
  assertStrictEquals(defaultCompactThreshold("gpt-4"), 6_144, "gpt-4 is not gpt-4o or gpt-4.1");
  assertStrictEquals(
    defaultCompactThreshold("scripted"),
    Math.floor(DEFAULT_CONTEXT_WINDOW * THRESHOLD_FRACTION),
  );
  assertEquals(resolveCompactThreshold({ model: "gpt-5" }), { tokens: 300_000, source: "model" });
  assertEquals(resolveCompactThreshold({ model: "scripted" }), {
    tokens: 24_000,
    source: "default",
  });
  assertEquals(resolveCompactThreshold({ model: "gpt-5", override: "1200" }), {
    tokens: 1200,
    source: "override",
  });
  assertEquals(resolveCompactThreshold({ model: "x", override: 5 }).tokens, 5);
  for (const bad of ["0", "-3", "12k", "", 1.5, 0]) {
    const error = assertThrows(
      () => resolveCompactThreshold({ model: "x", override: bad }),
      InvalidThresholdError,
    );
    assertStrictEquals(
      error.message,
      `Invalid compaction threshold ${
        JSON.stringify(bad)
      }: expected a positive whole number of tokens`,
    );
  }
});

Deno.test("compactHistory keeps system + summary + earlier users, and the turn in flight whole", () => {
  const history = conversation(4);
  const result = compactHistory(history, "Goal:\n- read files");
  assertEquals(result.replacementHistory, [
    system,
    { type: "compaction_summary", content: "Goal:\n- read files" },
    user("request 0"),
    user("request 1"),
    user("request 2"),
    // The turn in flight: the model may not have answered its tool outputs yet.
    user("request 3"),
    call("c3"),
    output("c3", "read_file", "contents 3"),
    assistant("done 3"),
  ]);
  assertStrictEquals(result.removedItemCount, 9);
  assertStrictEquals(result.keptItemCount, 8);
  assertStrictEquals(result.removedItemCount + result.keptItemCount, history.length);
  // Every call that stays keeps its output.
  const before = result.replacementHistory.slice(0, 6);
  assert(
    before.every((item) => item.type !== "function_call" && item.type !== "function_call_output"),
  );
});

Deno.test("compactHistory: the budget keeps the newest earlier users; the turn in flight's even over budget", () => {
  const long = "x".repeat(400); // 100 tokens
  const history = [
    system,
    user(`old ${long}`),
    assistant("a"),
    user(`mid ${long}`),
    user(`new ${long}`),
  ];
  const fitsTwo = compactHistory(history, "s", { userBudgetTokens: 150 });
  assertEquals(fitsTwo.replacementHistory.slice(2), [user(`mid ${long}`), user(`new ${long}`)]);
  const overBudget = compactHistory(history, "s", { userBudgetTokens: 10 });
  assertEquals(overBudget.replacementHistory, [
    system,
    { type: "compaction_summary", content: "s" },
    user(`new ${long}`),
  ]);
  assertStrictEquals(overBudget.removedItemCount, 3);
  assertStrictEquals(overBudget.keptItemCount, 2);
  assertStrictEquals(estimateTokens(`new ${long}`), 101);
});

Deno.test("compactHistory: an earlier summary is replaced, a history without system message has none", () => {
  const first = compactHistory(conversation(2), "first").replacementHistory;
  const second = compactHistory([...first, call("c9"), output("c9"), user("next")], "second");
  assertEquals(second.replacementHistory.filter((i) => i.type === "compaction_summary"), [
    { type: "compaction_summary", content: "second" },
  ]);
  const bare = compactHistory([user("u"), call("c1")], "s");
  assertEquals(bare.replacementHistory, [
    { type: "compaction_summary", content: "s" },
    user("u"),
    call("c1"),
  ]);
});

Deno.test("renderHistoryForSummary: bounded, newest items win, tool outputs clipped, the goal kept", () => {
  const history: ResponseItem[] = [system, user("GOAL: fix the parser")];
  for (let i = 0; i < 200; i++) {
    history.push(call(`c${i}`), output(`c${i}`, "read_file", `out${i} ${"y".repeat(5000)}`));
  }
  history.push(user("latest question"));
  const text = renderHistoryForSummary(history, { maxChars: 8000 });
  assert(text.length <= 8000 + 40, `rendering of ${text.length} characters`);
  assert(text.includes("GOAL: fix the parser"), "the first user message is pinned");
  assert(text.includes("latest question"));
  assert(text.includes("out199"), "the newest output is in");
  assert(!text.includes("out0 "), "the oldest output is not");
  assert(/\[\d+ earlier items omitted\]/.test(text));
  assert(text.includes("characters clipped"), "a long output is clipped");
  assert(!text.includes("You are careful."), "the system message is left out");
  const small = renderHistoryForSummary([system, user("a"), assistant("b")]);
  assertStrictEquals(small, "[user]\na\n\n[assistant]\nb");
  const [instructions, input] = summaryRequestItems(history, { maxChars: 8000 });
  assertStrictEquals(instructions?.content, SUMMARY_INSTRUCTIONS);
  assert(input?.content.endsWith(text));
  for (
    const section of ["Goal", "Decisions", "Files touched", "Work done", "Work left", "Errors"]
  ) {
    assert(SUMMARY_INSTRUCTIONS.includes(`${section}:`), section);
  }
});

Deno.test("makeCheckpoint carries its version and the replacement history itself", () => {
  const compacted = compactHistory(conversation(2), "sum");
  const checkpoint = makeCheckpoint(compacted, { reason: "token_threshold", tokensBefore: 9100 });
  assertEquals(checkpoint, {
    type: "compaction_checkpoint",
    version: CHECKPOINT_VERSION,
    reason: "token_threshold",
    tokensBefore: 9100,
    removedItemCount: 3,
    keptItemCount: 6,
    replacementHistory: compacted.replacementHistory,
  });
  assertEquals(replayHistory([responseItemRecord(checkpoint)]), compacted.replacementHistory);
});

Deno.test("a resumed session's history equals the live run's in-memory history after a compaction", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "read a.txt" });
  // The live run: its in-memory history, compacted in the middle of a later round, then one
  // more round.
  let live = [...run.history];
  const round1 = [
    call("c1"),
    output("c1", "read_file", "A".repeat(300)),
    assistant("a.txt holds A's"),
    user("now b.txt"),
    call("c2"),
  ];
  live.push(...round1);
  await run.writer.append(itemRecords(round1));
  const compacted = compactHistory(live, "Goal:\n- read a.txt", { userBudgetTokens: 50 });
  const checkpoint = makeCheckpoint(compacted, {
    reason: "token_threshold",
    tokensBefore: 900,
    recordsBefore: run.writer.appendedRecords,
  });
  await run.writer.append([responseItemRecord(checkpoint)]);
  live = [...compacted.replacementHistory];
  assertEquals(live.slice(-2), [user("now b.txt"), call("c2")], "the turn in flight stays");
  const round2 = [output("c2", "read_file", "B"), assistant("b.txt holds a B")];
  live.push(...round2);
  await run.writer.append([...itemRecords(round2), finished(run.runId, 2)]);
  run.writer.close();

  const resumed = await resumeSession(run.sessionId, { root: dir.path });
  assertEquals(resumed.history, live);
  assertEquals(resumed.synthesizedItems, [], "c2 kept its output across the compaction");
  const lines = await fileLines(run.location.path);
  const at = lines.findIndex((line) => line.includes('"compaction_checkpoint"'));
  const checkpointStart = lines.slice(0, at).reduce(
    (bytes, line) => bytes + new TextEncoder().encode(line).length + 1,
    0,
  );
  assertStrictEquals(resumed.replayedFrom, checkpointStart, "resume started at the checkpoint");
  assertStrictEquals(resumed.recordCount, lines.length);
  assertEquals(resumed.lastTurn, run.turn, "the turn_context before the checkpoint is found");

  const next = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir.path,
    sessionId: run.sessionId,
    message: "and c.txt?",
  });
  next.writer.close();
  assertEquals(next.history, [...live, user("and c.txt?")]);
  assertStrictEquals(next.recordCountBefore, lines.length);
  assertStrictEquals((await fileLines(run.location.path)).length, lines.length + 2);
});

Deno.test("replay uses the stored history: a later budget or transform change does not alter an old session", async () => {
  await using dir = await tempDir();
  const run = await initializeSessionForRun({ ...RUN_BASE, root: dir.path, message: "one" });
  const history = [...run.history, assistant("1"), user("two"), call("c1"), output("c1")];
  await run.writer.append(itemRecords(history.slice(2)));
  const stored = compactHistory(history, "sum", { userBudgetTokens: 0 });
  await run.writer.append([
    responseItemRecord(makeCheckpoint(stored, { reason: "token_threshold", tokensBefore: 1 })),
  ]);
  run.writer.close();
  // Today's transform with another budget would keep both user messages...
  const today = compactHistory(history, "sum", { userBudgetTokens: 1000 });
  assert(today.replacementHistory.length !== stored.replacementHistory.length);
  // ...but the session replays to what was stored, by either way of reading it.
  const fast = await loadSession(run.location);
  const slow = await loadSession(run.location, { fromCheckpoint: false });
  assertEquals(fast.replayed, stored.replacementHistory);
  assertEquals(slow.replayed, stored.replacementHistory);
  const { records } = await collectRecords(run.location.path, { strict: true });
  assertEquals(replayHistory(records), stored.replacementHistory);
});
