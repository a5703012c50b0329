import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { eventOf, fileRecords, harness, labels, sentShape } from "./_runtime_helpers.ts";
import { SUMMARY_PREFIX, TRANSCRIPT_HEADING } from "../src/compaction/mod.ts";
import { connectModel, createCompactor } from "../src/runtime/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";
import { toResponsesInput } from "../src/runtime/_wire.ts";

const FILES = { "notes.txt": "alpha\nbeta\ngamma\n".repeat(400), "b.txt": "bee\n" };

for (const wireApi of ["responses", "chat"] as const) {
  Deno.test(`${wireApi}: a round over the threshold compacts, and the next resume sends the compacted history`, async () => {
    await using h = await harness(FILES);
    const compactor = createCompactor({ threshold: 2500 });
    const first = await h.turn("list the files", { wireApi, compactor });
    const sessionId = eventOf(first, "run_started").sessionId;
    assertEquals(first.some((e) => e.type === "history_compacted"), false, "below the threshold");

    const second = await h.turn("read notes.txt", { sessionId, compactor });
    const compacted = eventOf(second, "history_compacted");
    assertEquals(compacted.when, "after_round");
    assert(compacted.tokensBefore >= 2500);
    assertEquals(
      compacted.itemsAfter,
      7,
      "system + summary + the first user message + the turn in flight (user, call, output, answer)",
    );
    assertEquals(compacted.removedItemCount + compacted.keptItemCount, compacted.itemsBefore);

    // The summary request went without tools, carrying the rendered history.
    const summaryRequest = h.sent.find((body) => body.tools === undefined)!;
    const messages = summaryRequest.input ?? summaryRequest.messages;
    assert(String(messages.at(-1).content).startsWith(TRANSCRIPT_HEADING));

    // The file holds one checkpoint with the replacement history and the record count.
    const path = eventOf(second, "run_started").sessionPath;
    const records = await fileRecords(path);
    const index = records.findIndex((r) =>
      r.type === "response_item" && r.payload.type === "compaction_checkpoint"
    );
    const checkpoint = records[index]!;
    assert(
      checkpoint.type === "response_item" && checkpoint.payload.type === "compaction_checkpoint",
    );
    assertEquals(checkpoint.payload.recordsBefore, index);
    assertEquals(
      checkpoint.payload.replacementHistory.map((item) =>
        item.type === "message" ? item.role : item.type
      ),
      [
        "system",
        "compaction_summary",
        "user",
        "user",
        "function_call",
        "function_call_output",
        "assistant",
      ],
    );
    // The model answered from the output it asked for: it did not call the tool again.
    const calls = records.filter((r) =>
      r.type === "response_item" && r.payload.type === "function_call"
    );
    assertEquals(calls.length, 2, "one list_dir, one read_file");
    assertMatch(
      (checkpoint.payload.replacementHistory[1] as { content: string }).content,
      /^Goal:\n- list the files\n/,
    );

    // The next resume starts from the checkpoint and sends exactly the live history + new user.
    const resumed = await resumeSession(sessionId, { root: h.sessionsDir });
    assert(resumed.replayedFrom !== undefined, "resume took the short way");
    assertEquals(resumed.recordCount, records.length);
    const before = h.sent.length;
    const third = await h.turn("what did I ask", { sessionId, compactor });
    const request = h.sent[before]!;
    const shape = sentShape(request);
    assertEquals(shape.slice(0, 2), ["system", "user"]);
    const sent = request.input ?? request.messages;
    assert(
      String(sent[1].content).startsWith(SUMMARY_PREFIX),
      "the summary goes as a user message",
    );
    if (wireApi === "responses") {
      assertEquals(
        request.input,
        toResponsesInput([...resumed.history, {
          type: "message",
          role: "user",
          content: "what did I ask",
        }]),
      );
    }
    assertMatch(eventOf(third, "run_succeeded").answer, /list the files[\s\S]*read notes\.txt/);
  });
}

Deno.test("a resumed turn over the threshold compacts at its start", async () => {
  await using h = await harness(FILES);
  const first = await h.turn("read notes.txt");
  const sessionId = eventOf(first, "run_started").sessionId;
  const events = await h.turn("thanks", {
    sessionId,
    compactor: createCompactor({ threshold: 300 }),
  });
  const compacted = eventOf(events, "history_compacted");
  assertEquals(compacted.when, "turn_start");
  const types = events.map((e) => e.type);
  assert(types.indexOf("history_compacted") < types.indexOf("model_requested"));
  assertEquals(eventOf(events, "model_requested").messageCount, compacted.itemsAfter);
});

Deno.test("a failed summary call leaves the turn intact and says so", async () => {
  await using h = await harness(FILES);
  const first = await h.turn("read notes.txt");
  const sessionId = eventOf(first, "run_started").sessionId;
  const path = eventOf(first, "run_started").sessionPath;
  // The summary goes through a connection whose server refuses it.
  await using broken = await connectModel({ baseURL: h.model.baseURL, apiKey: "wrong-key" });
  const events = await h.turn("read b.txt", {
    sessionId,
    compactor: createCompactor({ connection: broken, threshold: 300 }),
  });
  const failed = eventOf(events, "compaction_failed");
  assertMatch(failed.error, /^The summary call failed: /);
  const done = eventOf(events, "run_succeeded");
  assertMatch(done.answer, /bee/);
  const records = await fileRecords(path);
  assertEquals(labels(records).includes("compaction_checkpoint"), false);
  assertEquals(done.recordCount, records.length);
  const resumed = await resumeSession(sessionId, { root: h.sessionsDir });
  assertEquals(
    resumed.history.filter((i) => i.type === "function_call").length,
    2,
    "nothing was removed",
  );
});

/**
 * Runs `work` with the engine's longest string made `limit` characters: JSON.stringify throws
 * what V8 throws past its own limit (about 512 Mi characters), at a size a test can reach.
 */
async function withStringLimit<T>(limit: number, work: () => Promise<T>): Promise<T> {
  const stringify = JSON.stringify;
  JSON.stringify = ((...args: Parameters<typeof stringify>) => {
    const text = stringify(...args);
    if (text !== undefined && text.length > limit) throw new RangeError("Invalid string length");
    return text;
  }) as typeof stringify;
  try {
    return await work();
  } finally {
    JSON.stringify = stringify;
  }
}

/** A session whose history is about 145,000 characters: eight reads of a long file. */
async function largeSession(h: Awaited<ReturnType<typeof harness>>): Promise<string> {
  let sessionId: string | undefined;
  for (let i = 0; i < 8; i++) {
    const events = await h.turn("read big.txt", { sessionId, policy: { approval: "auto" } });
    sessionId ??= eventOf(events, "run_started").sessionId;
  }
  return sessionId!;
}

const BIG = { "big.txt": "0123456789abcdef\n".repeat(3000) };

Deno.test("a history too large for any request is compacted before the first request, with no string of it all", async () => {
  await using h = await harness(BIG);
  const sessionId = await largeSession(h);
  h.sent.length = 0;
  const events = await withStringLimit(100_000, () =>
    h.turn("what did I ask?", {
      sessionId,
      compactor: createCompactor({ threshold: 5_000 }),
      maxRequestChars: 100_000,
    }));
  assertEquals(events.at(-1)?.type, "run_succeeded", JSON.stringify(events.at(-1)));
  assertEquals(eventOf(events, "history_compacted").when, "turn_start");
  assert(h.sent.every((body) => JSON.stringify(body).length < 100_000));
});

Deno.test("a history too large for any request, not compacted, fails the turn in one line before the request", async () => {
  await using h = await harness(BIG);
  const sessionId = await largeSession(h);
  h.sent.length = 0;
  const events = await h.turn("what did I ask?", { sessionId, maxRequestChars: 100_000 });
  const failed = eventOf(events, "run_failed");
  assertMatch(
    failed.error,
    /: the history is [\d,]+ characters, more than one request can carry \(100,000\), and compaction did not shrink it: /,
  );
  assertEquals([failed.errorKind, h.sent.length], ["session_file", 0]);
});
