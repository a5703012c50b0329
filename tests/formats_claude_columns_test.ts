/**
 * The Claude Code reader's columns answer what the objects and strings they replaced did: a
 * node's uuid made from its bytes, each assistant line's response (its `message.id` and model)
 * by number, and the check's columns let go once the check is done.
 */
import { assertEquals } from "./_assert.ts";
import { NodeTable } from "../src/formats/claude_code/_index.ts";
import { LineChecks } from "../src/formats/claude_code/_check.ts";

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
