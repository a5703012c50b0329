/**
 * The Claude Code reader's columns answer what the objects and strings they replaced did: a
 * node's uuid made from its bytes, each assistant line's response (its `message.id` and model)
 * by number, and the check's columns let go once the check is done.
 */
import { assertEquals, assertThrows } from "./_assert.ts";
import { NodeTable, ResponseUsage } from "../src/formats/claude_code/_index.ts";
import { LineChecks } from "../src/formats/claude_code/_check.ts";
import { CallIdTable } from "../src/formats/_call_ids.ts";

/** A pseudo-random uuid of lowercase hex (the same for the same `n`). */
function uuidOf(n: number): string {
  let state = n * 2654435761 >>> 0;
  let text = "";
  for (let i = 0; i < 32; i++) {
    state = Math.imul(state ^ (state >>> 15), 0x2c1b3c6d) >>> 0;
    text += (state & 15).toString(16);
    if (i === 7 || i === 11 || i === 15 || i === 19) text += "-";
  }
  return text;
}

const plain = { hasParent: false, sidechain: false, rare: undefined } as const;

Deno.test("NodeTable.uuid() gives back each uuid pushed, as bytes or kept aside", () => {
  const nodes = new NodeTable();
  const uuids: (string | undefined)[] = [];
  for (let at = 0; at < 40_000; at++) {
    // Every 7th an id of another shape (kept as its string), every 11th none.
    const uuid = at % 11 === 0 ? undefined : at % 7 === 0 ? uuidOf(at).toUpperCase() : uuidOf(at);
    uuids.push(uuid);
    nodes.push({ line: at + 1, start: at, end: at + 1 }, { kind: "prompt", uuid, ...plain });
  }
  for (let at = 0; at < uuids.length; at++) {
    const uuid = uuids[at];
    assertEquals(nodes.uuid(at), uuid, `node ${at}`);
    assertEquals(nodes.hasUuid(at), uuid !== undefined);
    if (uuid !== undefined) assertEquals(nodes.uuidIs(at, uuid), true);
  }
  // The ones of a uuid's shape are held as 16 bytes: a node's uuid made again from them.
  assertEquals(/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/.test(uuids[1]!), true);
});

Deno.test("NodeTable.responseNumber() numbers a response's lines once, ids and models by it", () => {
  const nodes = new NodeTable();
  const lines: { messageId?: string; model?: string; assistant: boolean }[] = [
    { messageId: "msg_1", model: "claude-a", assistant: true },
    { messageId: "msg_1", model: "claude-a", assistant: true }, // the same response
    { assistant: false },
    { messageId: "msg_1", model: "claude-a", assistant: true }, // after another line: the same
    { messageId: "msg_1", model: "claude-b", assistant: true }, // another model: a new one
    { model: "claude-b", assistant: true }, // no message id
    { assistant: true }, // neither
    { messageId: "", model: "claude-a", assistant: true }, // an empty id is an id
    { messageId: "msg_é", model: "<synthetic>", assistant: true },
  ];
  lines.forEach((line, at) => {
    nodes.push({ line: at + 1, start: at, end: at + 1 }, {
      kind: line.assistant ? "assistant" : "prompt",
      uuid: undefined,
      ...plain,
      assistant: line.assistant,
      messageId: line.messageId,
      model: line.model,
    });
  });
  assertEquals(
    lines.map((_, at) => nodes.responseNumber(at)),
    [0, 0, -1, 0, 1, 2, 3, 4, 5],
  );
  lines.forEach((line, at) => {
    assertEquals(nodes.messageId(at), line.assistant ? line.messageId : undefined, `line ${at}`);
    assertEquals(nodes.model(at), line.assistant ? line.model : undefined, `line ${at}`);
    assertEquals(
      nodes.response(at),
      line.assistant ? { messageId: line.messageId, model: line.model } : undefined,
    );
  });
  // Past the first room of the columns (1,024 responses).
  const first = nodes.length;
  for (let n = 0; n < 3000; n++) {
    nodes.push({ line: first + n + 1, start: 0, end: 1 }, {
      kind: "assistant",
      uuid: undefined,
      ...plain,
      assistant: true,
      messageId: `msg_${n}`,
      model: `model-${n % 3}`,
    });
  }
  // Asked out of order, and again: each its own id.
  assertEquals([2999, 0, 2999, 1, 0].map((n) => nodes.messageId(first + n)), [
    "msg_2999",
    "msg_0",
    "msg_2999",
    "msg_1",
    "msg_0",
  ]);
  assertEquals(nodes.responseNumber(first + 2999), 6 + 2999);
  assertEquals(nodes.messageId(first + 2999), "msg_2999");
  assertEquals(nodes.model(first + 2998), "model-1");
});

Deno.test("LineChecks.release() lets the columns go; the checks start again empty", () => {
  const checks = new LineChecks();
  const call = (id: string) => ({
    type: "assistant",
    message: { content: [{ type: "tool_use", id, name: "Bash" }] },
  });
  for (let k = 0; k < 5000; k++) checks.add(call(`c${k}`), k);
  assertEquals(checks.at(4999), {
    type: "assistant",
    uses: [{ id: "c4999", name: "Bash", k: 4999 }],
    results: [],
    blocks: 1,
  });
  checks.release();
  assertEquals(checks.at(0), undefined);
  assertEquals(checks.at(4999), undefined);
  checks.add(call("again"), 2000);
  assertEquals(checks.at(2000)?.uses, [{ id: "again", name: "Bash", k: 2000 }]);
  assertEquals(checks.at(1999), undefined);
});

Deno.test("NodeTable.release() gives the columns back: the table is empty and grows again", () => {
  const nodes = new NodeTable();
  const push = (at: number, line: number, uuid: string) =>
    nodes.push({ line, start: at * 10, end: at * 10 + 9 }, {
      kind: "assistant",
      uuid,
      ...plain,
      assistant: true,
      messageId: `msg_${at}`,
      model: "claude",
    });
  // Before: a uuid of another shape kept aside, and line numbers past a blank line.
  for (let at = 0; at < 20_000; at++) {
    push(at, at < 2 ? at + 1 : at + 2, at === 1 ? "ODD-ID" : uuidOf(at));
  }
  nodes.release();
  assertEquals(nodes.length, 0);
  for (let at = 0; at < 3; at++) push(at, at + 1, uuidOf(at));
  assertEquals(
    [0, 1, 2].map((at) => [nodes.line(at), nodes.end(at), nodes.messageId(at), nodes.uuid(at)]),
    [[1, 9, "msg_0", uuidOf(0)], [2, 19, "msg_1", uuidOf(1)], [3, 29, "msg_2", uuidOf(2)]],
  );
  assertEquals(nodes.responseNumber(2), 2);
});

Deno.test("CallIdTable.release() gives its memory back; a use after throws", () => {
  const table = new CallIdTable();
  for (let i = 0; i < 3000; i++) table.set(`toolu_${i}`, i);
  table.release();
  assertEquals(assertThrows(() => table.get("toolu_1"), Error).message.includes("released"), true);
  assertEquals(
    assertThrows(() => table.set("toolu_1", 1), Error).message.includes("released"),
    true,
  );
});

Deno.test("ResponseUsage.releaseKeys() keeps the events and totals; a lookup by key throws", () => {
  const usage = new ResponseUsage();
  const tokens = { input: 10, output: 1, cacheRead: 2, cacheCreation: 5 };
  for (let n = 0; n < 2000; n++) {
    usage.note(`msg_${n}|req_${n}`, tokens, {
      time: "2026-02-23T12:00:10.000Z",
      model: "claude",
      line: n + 1,
    });
  }
  const events = usage.events().toArray();
  const values = [...usage.values()];
  usage.releaseKeys();
  assertEquals(usage.events().toArray(), events);
  assertEquals([...usage.values()], values);
  assertEquals([...usage.allTokens()].length, 2000);
  assertEquals(
    assertThrows(() => usage.get("msg_1|req_1"), Error).message.includes("released"),
    true,
  );
  assertEquals(
    assertThrows(() => usage.tokens("msg_1|req_1"), Error).message.includes("released"),
    true,
  );
});

Deno.test("NodeTable.start() and time() answer past 32 bits from their page's first", () => {
  const nodes = new NodeTable();
  const day = 86_400_000;
  const first = Date.parse("2026-02-23T12:00:00.000Z");
  const cases: { start: number; time: string | undefined }[] = [
    { start: 1000, time: new Date(first).toISOString() },
    { start: 2000, time: new Date(first + 24 * day).toISOString() }, // within 2^31 ms
    { start: 3000, time: new Date(first + 25 * day).toISOString() }, // past it: aside
    { start: 4000, time: new Date(first - 25 * day).toISOString() }, // before it, past it
    { start: 4000, time: new Date(first - 1).toISOString() },
    { start: 500, time: "2026-02-23T12:00:00Z" }, // a start before the first; an odd time
    { start: 1000 + 2 ** 32 + 5, time: undefined }, // past 2^32 bytes from the first
    { start: 1000 + 2 ** 32 - 2, time: new Date(first + 1).toISOString() },
    { start: 2 ** 53 - 10, time: "not a time" },
  ];
  cases.forEach(({ start, time }, at) => {
    nodes.push({ line: at + 1, start, end: start + 7 }, {
      kind: "progress",
      uuid: undefined,
      ...plain,
      rare: { label: "hook_progress", boundary: undefined, time, mode: undefined },
    });
  });
  assertEquals(
    cases.map((_, at) => [nodes.start(at), nodes.end(at), nodes.time(at)]),
    cases.map(({ start, time }) => [start, start + 7, time]),
  );
});
