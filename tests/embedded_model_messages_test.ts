/**
 * The embedded model's Anthropic Messages wire (`POST /v1/messages`), over HTTP as Claude Code
 * calls it: the message and its stream, the refusals of the real API in its words, and the
 * requests recorded for tests to read back.
 */
import {
  messagesOrphanCallMessage,
  messagesOrphanResultMessage,
  startEmbeddedModel,
  TOOLS_REQUIRED_MESSAGE,
} from "../src/embedded_model/mod.ts";
import { assert, assertEquals } from "./_assert.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const BASH = {
  name: "Bash",
  description: "Runs a command",
  input_schema: { type: "object", properties: { command: { type: "string" } } },
};

async function post(
  model: { anthropicBaseURL: string; apiKey: string },
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Json; text: string }> {
  const response = await fetch(`${model.anthropicBaseURL}/v1/messages?beta=true`, {
    method: "POST",
    headers: { "x-api-key": model.apiKey, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null;
  return { status: response.status, body: json, text };
}

/** The SSE stream's events as `[name, data]`. */
function events(text: string): [string, Json][] {
  return text.trim().split("\n\n").map((block) => {
    const name = /^event: (.*)$/m.exec(block)![1]!;
    const data = block.split("\n").filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6)).join("\n");
    return [name, JSON.parse(data)];
  });
}

const user = (content: unknown) => ({ role: "user", content });
const assistant = (content: unknown) => ({ role: "assistant", content });
const use = (id: string, command: string) => ({
  type: "tool_use",
  id,
  name: "Bash",
  input: { command },
});
const result = (id: string, content: string) => ({ type: "tool_result", tool_use_id: id, content });

Deno.test("startEmbeddedModel() answers POST /v1/messages with a message", async () => {
  await using model = await startEmbeddedModel();
  const { status, body } = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [user("hello there")],
  });
  assertEquals(status, 200);
  assertEquals([body.type, body.role, body.model, body.stop_reason], [
    "message",
    "assistant",
    "scripted",
    "end_turn",
  ]);
  assertEquals(body.content.length, 1);
  assertEquals(body.content[0].type, "text");
  assert(body.content[0].text.includes('You said: "hello there"'));
  assert(body.usage.input_tokens > 0 && body.usage.output_tokens > 0);
});

Deno.test("startEmbeddedModel() streams parallel Bash calls as tool_use blocks with input_json_delta", async () => {
  await using model = await startEmbeddedModel({ callPauseMs: 0 });
  const { status, text } = await post(model, {
    model: model.model,
    max_tokens: 1000,
    stream: true,
    tools: [BASH],
    messages: [user([
      { type: "text", text: "<system-reminder>\nlist the files\n</system-reminder>" },
      { type: "text", text: "run `echo one` and `echo two`" },
    ])],
  });
  assertEquals(status, 200);
  const stream = events(text);
  assertEquals(stream.map(([name, data]) => `${name}${data.index ?? ""}`), [
    "message_start",
    "content_block_start0",
    ...stream.filter(([name, data]) => name === "content_block_delta" && data.index === 0)
      .map(() => "content_block_delta0"),
    "content_block_stop0",
    "content_block_start1",
    ...stream.filter(([name, data]) => name === "content_block_delta" && data.index === 1)
      .map(() => "content_block_delta1"),
    "content_block_stop1",
    "message_delta",
    "message_stop",
  ]);
  const inputs = [0, 1].map((index) =>
    JSON.parse(
      stream.filter(([name, data]) => name === "content_block_delta" && data.index === index)
        .map(([, data]) => data.delta.partial_json).join(""),
    )
  );
  assertEquals(inputs, [
    { command: "echo one", description: "Run echo one" },
    { command: "echo two", description: "Run echo two" },
  ]);
  const starts = stream.filter(([name]) => name === "content_block_start");
  assertEquals(starts.map(([, data]) => [data.content_block.type, data.content_block.name]), [
    ["tool_use", "Bash"],
    ["tool_use", "Bash"],
  ]);
  assertEquals(stream.at(-2)![1].delta.stop_reason, "tool_use");
});

Deno.test("startEmbeddedModel() refuses a tool_use without its tool_result next, in the API's words", async () => {
  await using model = await startEmbeddedModel();
  const { status, body } = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [
      user("run `ls`"),
      assistant([use("toolu_1", "ls"), use("toolu_2", "pwd")]),
      user([result("toolu_1", "a.txt")]),
      assistant("ok"),
      user("next"),
    ],
  });
  assertEquals(status, 400);
  assertEquals(body, {
    type: "error",
    error: { type: "invalid_request_error", message: messagesOrphanCallMessage(1, ["toolu_2"]) },
  });
  assertEquals(
    body.error.message,
    "messages.1: tool_use ids were found without tool_result blocks immediately after: " +
      "toolu_2. Each tool_use block must have a corresponding tool_result block in the next " +
      "message.",
  );
});

Deno.test("startEmbeddedModel() refuses a tool_result without its tool_use right before, in the API's words", async () => {
  await using model = await startEmbeddedModel();
  const { status, body } = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [user("hi"), assistant("hello"), user([result("toolu_9", "stray")])],
  });
  assertEquals(status, 400);
  assertEquals(body.error.message, messagesOrphanResultMessage("messages.2.content.0", "toolu_9"));
  assertEquals(
    body.error.message,
    "messages.2.content.0: unexpected tool_use_id found in tool_result blocks: toolu_9. Each " +
      "tool_result block must have a corresponding tool_use block in the previous message.",
  );
});

Deno.test("startEmbeddedModel() combines consecutive same-role messages, as the API documents", async () => {
  await using model = await startEmbeddedModel();
  const { status, body } = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [
      user("run `ls`"),
      assistant([use("toolu_1", "ls")]),
      assistant([use("toolu_2", "pwd")]),
      user([result("toolu_1", "a.txt")]),
      user([result("toolu_2", "/work")]),
    ],
  });
  assertEquals(status, 200, body?.error?.message);
  assertEquals(body.content[0].text, "Bash(ls) returned: a.txt\n\nBash(pwd) returned: /work");
  const textFirst = await post(model, {
    model: model.model,
    max_tokens: 1000,
    messages: [
      user("run `ls`"),
      assistant([use("toolu_1", "ls")]),
      user([{ type: "text", text: "wait" }, result("toolu_1", "a.txt")]),
    ],
  });
  assertEquals(textFirst.status, 400, "the results lead the message after the calls");
  assertEquals(textFirst.body.error.message, messagesOrphanCallMessage(1, ["toolu_1"]));
});

Deno.test("startEmbeddedModel() takes system messages inside messages only under their beta", async () => {
  await using model = await startEmbeddedModel();
  const body = {
    model: model.model,
    max_tokens: 1000,
    messages: [user("hi"), { role: "system", content: [{ type: "text", text: "# Env" }] }],
  };
  const refused = await post(model, body);
  assertEquals(refused.status, 400);
  assertEquals(
    refused.body.error.message,
    "messages.1.role: Input should be 'user' or 'assistant'",
  );
  const taken = await post(model, body, { "anthropic-beta": "per-turn-control-2026-07-01" });
  assertEquals(taken.status, 200);
});

Deno.test("startEmbeddedModel() answers a wrong key, a wrong model and a bad body in Anthropic's shape", async () => {
  await using model = await startEmbeddedModel({ record: true });
  const request = { model: model.model, max_tokens: 10, messages: [user("hi")] };
  const key = await post({ ...model, apiKey: "nope" }, request);
  assertEquals([key.status, key.body.error.type], [401, "authentication_error"]);
  const other = await post(model, { ...request, model: "claude-x" });
  assertEquals([other.status, other.body], [404, {
    type: "error",
    error: { type: "not_found_error", message: "model: claude-x" },
  }]);
  const bad = await post(model, { model: model.model, messages: [user("hi")] });
  assertEquals([bad.status, bad.body.type, bad.body.error.type], [
    400,
    "error",
    "invalid_request_error",
  ]);
  assertEquals(model.requests.map((r) => [r.route, r.status]), [
    ["POST /v1/messages", 401],
    ["POST /v1/messages", 404],
    ["POST /v1/messages", 400],
  ]);
  assertEquals(model.requests[1]!.body, { ...request, model: "claude-x" });
  assertEquals(model.requests[1]!.error, "model: claude-x");
});

Deno.test("startEmbeddedModel() refuses tool_use ids of another form and tool blocks without tools, as the API does", async () => {
  await using model = await startEmbeddedModel();
  const dotted = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [user("run `ls`"), assistant([use("call.1", "ls")]), user([result("call.1", "a")])],
  });
  assertEquals(dotted.status, 400);
  assertEquals(
    dotted.body.error.message,
    "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
  );
  const untooled = await post(model, {
    model: model.model,
    max_tokens: 1000,
    messages: [user("run `ls`"), assistant([use("toolu_1", "ls")]), user([result("toolu_1", "a")])],
  });
  assertEquals([untooled.status, untooled.body.error.message], [400, TOOLS_REQUIRED_MESSAGE]);
  const undeclared = await post(model, {
    model: model.model,
    max_tokens: 1000,
    tools: [BASH],
    messages: [
      user("run `ls`"),
      assistant([{ type: "tool_use", id: "call_1", name: "exec_command", input: { cmd: "ls" } }]),
      user([result("call_1", "a.txt")]),
    ],
  });
  assertEquals(undeclared.status, 200, "a call of a tool the request does not offer is taken");
});
