import { assert, assertEquals } from "./_assert.ts";
import { assistant, call, output, user } from "./_helpers.ts";
import { INTERRUPTED_CODE, normalizeHistory } from "../src/history/mod.ts";
import type { ResponseItem } from "../src/record/mod.ts";
import { Rng } from "../testing/generate/mod.ts";

const SYSTEM: ResponseItem = { type: "message", role: "system", content: "sys" };

Deno.test("normalize leaves a paired history alone", () => {
  const items = [
    SYSTEM,
    user("hi"),
    call("a"),
    call("b"),
    output("a"),
    output("b"),
    assistant("done"),
  ];
  const result = normalizeHistory(items);
  assertEquals(result.history, items);
  assertEquals(result.synthesized, []);
  assertEquals(result.dropped, []);
});

Deno.test("normalize synthesizes an output for an orphan call, right after it", () => {
  const result = normalizeHistory([
    SYSTEM,
    user("wait"),
    call("slow", "slow_task", '{"seconds":9}'),
  ]);
  assertEquals(result.synthesized.length, 1);
  const synthesized = result.synthesized[0]!;
  assertEquals(result.history, [
    SYSTEM,
    user("wait"),
    call("slow", "slow_task", '{"seconds":9}'),
    synthesized,
  ]);
  assertEquals({ ...synthesized, output: "" }, {
    type: "function_call_output",
    callId: "slow",
    toolName: "slow_task",
    output: "",
    isError: true,
    synthesized: true,
  });
  assertEquals(
    synthesized.output.startsWith(
      `Error [${INTERRUPTED_CODE}]: This tool call (slow_task) did not finish`,
    ),
    true,
  );
});

Deno.test("normalizeHistory() handles mixed pairing: only the unanswered call gets an output, after its block", () => {
  const result = normalizeHistory([
    user("go"),
    call("a"),
    call("b"),
    output("a"),
    call("c"),
    output("c"),
  ]);
  assertEquals(result.synthesized.map((item) => item.callId), ["b"]);
  assertEquals(
    result.history.map((item) =>
      item.type === "function_call" || item.type === "function_call_output"
        ? `${item.type}:${item.callId}`
        : item.type
    ),
    [
      "message",
      "function_call:a",
      "function_call:b",
      "function_call_output:a",
      "function_call_output:b",
      "function_call:c",
      "function_call_output:c",
    ],
  );
});

Deno.test("normalize drops an orphan output and a second output for one call", () => {
  const orphan = output("ghost");
  const duplicate = output("a", "read_file", "again");
  const result = normalizeHistory([user("go"), orphan, call("a"), output("a"), duplicate]);
  assertEquals(result.history, [user("go"), call("a"), output("a")]);
  assertEquals(result.dropped, [
    { item: orphan, reason: "orphan_output" },
    { item: duplicate, reason: "duplicate_output" },
  ]);
});

Deno.test("an output that comes before its call is dropped, and the call gets a synthesized one", () => {
  const early = output("a");
  const result = normalizeHistory([early, call("a")]);
  assertEquals(result.dropped, [{ item: early, reason: "orphan_output" }]);
  assertEquals(result.history, [call("a"), result.synthesized[0]!]);
  assertEquals(result.synthesized.map((item) => item.callId), ["a"]);
});

const shape = (items: readonly ResponseItem[]) =>
  items.map((item) =>
    item.type === "function_call" || item.type === "function_call_output"
      ? `${item.type === "function_call" ? "call" : "output"}:${item.callId}${
        item.type === "function_call_output" && item.synthesized ? "*" : ""
      }`
      : item.type === "message"
      ? `${item.role}:${item.content}`
      : item.type
  );

Deno.test("normalizeHistory() pairs two calls that share an id with their own outputs, in order", () => {
  const first = output("x", "read_file", "first");
  const second = output("x", "read_file", "second");
  const result = normalizeHistory([user("go"), call("x"), first, user("again"), call("x"), second]);
  assertEquals(result.synthesized, []);
  assertEquals(result.dropped, []);
  assertEquals(result.history, [user("go"), call("x"), first, user("again"), call("x"), second]);
});

Deno.test("normalizeHistory() places an output right after its call's block, wherever it stands", () => {
  // A crash left call "a" without an output in the middle of the file; a later resume
  // appended its synthesized output at the end, after more turns.
  const items: ResponseItem[] = [
    user("one"),
    call("a"),
    call("b"),
    output("b"),
    user("two"),
    assistant("done"),
    {
      type: "function_call_output",
      callId: "a",
      toolName: "read_file",
      output: "interrupted",
      isError: true,
      synthesized: true,
    },
  ];
  const result = normalizeHistory(items);
  assertEquals(shape(result.history), [
    "user:one",
    "call:a",
    "call:b",
    "output:a*",
    "output:b",
    "user:two",
    "assistant:done",
  ]);
  assertEquals([result.synthesized, result.dropped], [[], []]);
});

Deno.test("normalizeHistory() gives the same history whichever way it takes (in place or by id)", () => {
  // A history whose outputs all follow their blocks is normalized in one pass; an orphan
  // output at its end sends the same history the general way (the orphan is only dropped).
  // Both must agree on every history, ids repeated across blocks included.
  const rng = new Rng(7);
  const random = (n: number) => rng.int(0, n - 1);
  let inPlace = 0;
  for (let round = 0; round < 3000; round++) {
    const items: ResponseItem[] = [];
    for (let i = 0; i < 2 + random(10); i++) {
      const kind = random(5);
      const id = "abc"[random(3)]!;
      items.push(kind === 0 ? user(`m${i}`) : kind < 3 ? call(id) : output(id));
    }
    const direct = normalizeHistory(items);
    const general = normalizeHistory([...items, output("never-called")]);
    assertEquals(direct.history, general.history, JSON.stringify(items));
    assertEquals(direct.synthesized, general.synthesized, JSON.stringify(items));
    assertEquals(direct.dropped, general.dropped.slice(0, -1), JSON.stringify(items));
    if (direct.dropped.length === 0 && items.some((item) => item.type === "function_call")) {
      inPlace++;
    }
  }
  // Enough histories of the common shape, so the one-pass way is really exercised.
  assert(inPlace > 300, `${inPlace} histories without a dropped output`);
});
