/**
 * The embedded model through `npm:openai` against the real loopback server, for both wire
 * APIs, streaming and not: what a runtime sends and what it gets back.
 */
import OpenAI, { BadRequestError, NotFoundError } from "openai";
import { startEmbeddedModel } from "../src/embedded_model/mod.ts";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";

/** A history item in test shorthand, turned into either wire format. */
type Item =
  | { role: "system" | "user" | "assistant"; content: string }
  | { call: { id: string; name: string; args: Record<string, unknown> } }
  | { output: { id: string; text: string } };

interface Answer {
  text: string;
  calls: { callId: string; name: string; arguments: string }[];
  inputTokens: number;
  outputTokens: number;
  /** The raw response / completion, for identity checks. */
  raw: unknown;
}

const tool = (name: string, properties: Record<string, unknown>) => ({
  name,
  description: `The ${name} tool`,
  parameters: { type: "object", properties, required: Object.keys(properties) },
});
const TOOLS = [
  tool("list_dir", { path: { type: "string" } }),
  tool("read_file", { path: { type: "string" } }),
  tool("search_text", { pattern: { type: "string" } }),
  tool("write_file", { path: { type: "string" }, content: { type: "string" } }),
  tool("slow_task", { seconds: { type: "number" } }),
];

// deno-lint-ignore no-explicit-any
type Json = any;

function responsesInput(items: Item[]): Json[] {
  return items.map((item) => {
    if ("call" in item) {
      return {
        type: "function_call",
        call_id: item.call.id,
        name: item.call.name,
        arguments: JSON.stringify(item.call.args),
      };
    }
    if ("output" in item) {
      return { type: "function_call_output", call_id: item.output.id, output: item.output.text };
    }
    return { role: item.role, content: item.content };
  });
}

function chatMessages(items: Item[]): Json[] {
  const messages: Json[] = [];
  for (const item of items) {
    if ("call" in item) {
      const last = messages.at(-1);
      const toolCall = {
        id: item.call.id,
        type: "function",
        function: { name: item.call.name, arguments: JSON.stringify(item.call.args) },
      };
      if (last?.role === "assistant" && last.tool_calls) last.tool_calls.push(toolCall);
      else messages.push({ role: "assistant", content: null, tool_calls: [toolCall] });
    } else if ("output" in item) {
      messages.push({ role: "tool", tool_call_id: item.output.id, content: item.output.text });
    } else {
      messages.push({ role: item.role, content: item.content });
    }
  }
  return messages;
}

type Api = "responses" | "chat";
const MODES: { api: Api; stream: boolean }[] = [
  { api: "responses", stream: true },
  { api: "responses", stream: false },
  { api: "chat", stream: true },
  { api: "chat", stream: false },
];

async function ask(
  client: OpenAI,
  mode: { api: Api; stream: boolean },
  items: Item[],
  options: { tools?: boolean; model?: string } = {},
): Promise<Answer> {
  const model = options.model ?? "scripted";
  const withTools = options.tools ?? true;
  if (mode.api === "responses") {
    const body = {
      model,
      input: responsesInput(items),
      store: false,
      ...(withTools
        ? { tools: TOOLS.map((t) => ({ type: "function" as const, strict: false, ...t })) }
        : {}),
    };
    let response;
    let streamed = "";
    if (mode.stream) {
      const stream = client.responses.stream(body);
      for await (const event of stream) {
        if (event.type === "response.output_text.delta") streamed += event.delta;
      }
      response = await stream.finalResponse();
      const done = response.output.flatMap((item) =>
        item.type === "message" ? item.content.map((part) => "text" in part ? part.text : "") : []
      ).join("");
      assertEquals(streamed, done, "the deltas add up to the final text");
    } else {
      response = await client.responses.create(body);
    }
    // The SDK adds `output_text` to a created response only; a streamed one is read from items.
    const text = response.output.flatMap((item) =>
      item.type === "message"
        ? item.content.map((part) => part.type === "output_text" ? part.text : "")
        : []
    ).join("");
    if (!mode.stream) assertEquals(response.output_text, text);
    const calls = response.output.flatMap((item) =>
      item.type === "function_call"
        ? [{ callId: item.call_id, name: item.name, arguments: item.arguments }]
        : []
    );
    return {
      text,
      calls,
      inputTokens: response.usage!.input_tokens,
      outputTokens: response.usage!.output_tokens,
      raw: response,
    };
  }
  const body = {
    model,
    messages: chatMessages(items),
    ...(withTools ? { tools: TOOLS.map((t) => ({ type: "function" as const, function: t })) } : {}),
  };
  let completion;
  if (mode.stream) {
    const stream = client.chat.completions.stream({
      ...body,
      stream_options: { include_usage: true },
    });
    completion = await stream.finalChatCompletion();
  } else {
    completion = await client.chat.completions.create(body);
  }
  const message = completion.choices[0]!.message;
  const calls = (message.tool_calls ?? []).map((call) => {
    assert(call.type === "function");
    return { callId: call.id, name: call.function.name, arguments: call.function.arguments };
  });
  assertEquals(completion.choices[0]!.finish_reason, calls.length > 0 ? "tool_calls" : "stop");
  return {
    text: message.content ?? "",
    calls,
    inputTokens: completion.usage!.prompt_tokens,
    outputTokens: completion.usage!.completion_tokens,
    raw: completion,
  };
}

async function withModel(fn: (client: OpenAI) => Promise<void>): Promise<void> {
  await using model = await startEmbeddedModel();
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0 });
  await fn(client);
}

const LIST_TURN: Item[] = [
  { role: "system", content: "You are a helpful agent." },
  { role: "user", content: "List the files" },
];
const LIST_OUTPUT = "README.md\nnotes.txt\nsrc/";

for (const mode of MODES) {
  const name = `${mode.api}${mode.stream ? " streaming" : ""}`;

  Deno.test(`${name}: a list request becomes a list_dir call, then an answer quoting its output`, async () => {
    await withModel(async (client) => {
      const first = await ask(client, mode, LIST_TURN);
      assertEquals(first.text, "");
      assertEquals(first.calls.length, 1);
      const [call] = first.calls;
      assertEquals(call!.name, "list_dir");
      assertEquals(JSON.parse(call!.arguments), { path: "." });
      assertMatch(call!.callId, /^call_[0-9a-f]{24}$/);

      const second = await ask(client, mode, [
        ...LIST_TURN,
        { call: { id: call!.callId, name: "list_dir", args: { path: "." } } },
        { output: { id: call!.callId, text: LIST_OUTPUT } },
      ]);
      assertEquals(second.calls, []);
      assertEquals(
        second.text,
        "list_dir(.) returned 3 lines:\n  README.md\n  notes.txt\n  src/",
      );
    });
  });

  Deno.test(`${name}: a request without tools gets the deterministic summary`, async () => {
    await withModel(async (client) => {
      const answer = await ask(client, mode, [
        { role: "user", content: "Read notes.txt" },
        { call: { id: "call_a", name: "read_file", args: { path: "notes.txt" } } },
        { output: { id: "call_a", text: "hello" } },
        { role: "assistant", content: "read_file(notes.txt) returned: hello" },
        { role: "user", content: "Run a slow task for 5 seconds" },
        { call: { id: "call_b", name: "slow_task", args: { seconds: 5 } } },
        {
          output: {
            id: "call_b",
            text: "Error [SESSION_RESUME_INTERRUPTED]: This tool call (slow_task) did not finish",
          },
        },
        { role: "user", content: "Summarize the conversation so far." },
      ], { tools: false });
      assertEquals(answer.calls, []);
      assertEquals(
        answer.text,
        [
          "Goal:",
          "- Read notes.txt",
          "Decisions:",
          "- user asked: Run a slow task for 5 seconds",
          "Files touched:",
          "- notes.txt (read_file)",
          "Work done:",
          "- read_file(notes.txt): hello",
          "Work left:",
          "- slow_task(5s): interrupted, not known to have finished",
          "- answer: Run a slow task for 5 seconds",
          "Errors:",
          "- slow_task(5s): interrupted",
          "(2 user messages summarized)",
        ].join("\n"),
      );
    });
  });

  Deno.test(`${name}: "continue" after an interrupted call re-issues the same call`, async () => {
    await withModel(async (client) => {
      const answer = await ask(client, mode, [
        { role: "user", content: "Run a slow task for 5 seconds" },
        { call: { id: "call_orig", name: "slow_task", args: { seconds: 5 } } },
        {
          output: {
            id: "call_orig",
            text: "Error [SESSION_RESUME_INTERRUPTED]: This tool call (slow_task) did not finish",
          },
        },
        { role: "user", content: "Please continue" },
      ]);
      assertEquals(answer.calls.length, 1);
      assertEquals(answer.calls[0]!.name, "slow_task");
      assertEquals(answer.calls[0]!.arguments, JSON.stringify({ seconds: 5 }));
      assert(answer.calls[0]!.callId !== "call_orig");
    });
  });

  Deno.test(`${name}: "what did I ask" lists the earlier user messages`, async () => {
    await withModel(async (client) => {
      const answer = await ask(client, mode, [
        ...LIST_TURN,
        { call: { id: "call_1", name: "list_dir", args: { path: "." } } },
        { output: { id: "call_1", text: LIST_OUTPUT } },
        { role: "assistant", content: "Three entries." },
        { role: "user", content: "Run a slow task" },
        { call: { id: "call_2", name: "slow_task", args: { seconds: 3 } } },
        { output: { id: "call_2", text: "Slept 3 seconds" } },
        { role: "user", content: "What did I ask you so far?" },
      ]);
      assertEquals(
        answer.text,
        "Before this message you asked me 2 things:\n1. List the files\n2. Run a slow task",
      );
    });
  });

  Deno.test(`${name}: usage follows the contract and grows with the input`, async () => {
    await withModel(async (client) => {
      const short = await ask(client, mode, [{ role: "user", content: "hello" }]);
      const long = await ask(client, mode, [
        { role: "user", content: "hello" },
        { role: "assistant", content: "hi" },
        { role: "user", content: "hello again, with a much longer message than before" },
      ]);
      assert(long.inputTokens > short.inputTokens, `${long.inputTokens} > ${short.inputTokens}`);
      assertEquals(short.outputTokens, Math.ceil(short.text.length / 4));
      const sent = mode.api === "responses"
        ? {
          instructions: null,
          input: responsesInput([{ role: "user", content: "hello" }]),
          tools: TOOLS.map((t) => ({ type: "function", strict: false, ...t })),
        }
        : {
          messages: chatMessages([{ role: "user", content: "hello" }]),
          tools: TOOLS.map((t) => ({ type: "function", function: t })),
        };
      assertEquals(short.inputTokens, Math.ceil(JSON.stringify(sent).length / 4));
    });
  });

  Deno.test(`${name}: a call without its output is rejected with 400`, async () => {
    await withModel(async (client) => {
      const error = await assertRejects(
        () =>
          ask(client, mode, [
            ...LIST_TURN,
            { call: { id: "call_lost", name: "list_dir", args: { path: "." } } },
            { role: "user", content: "and now?" },
          ]),
        BadRequestError,
      );
      assertEquals(error.status, 400);
      assertEquals(
        error.message,
        mode.api === "chat"
          ? "400 An assistant message with 'tool_calls' must be followed by tool messages " +
            "responding to each 'tool_call_id'. The following tool_call_ids did not have " +
            "response messages: call_lost"
          : "400 No tool output found for function call call_lost.",
      );
      assertEquals(error.type, "invalid_request_error");
    });
  });

  Deno.test(`${name}: an output without its call is rejected with 400`, async () => {
    await withModel(async (client) => {
      const error = await assertRejects(
        () => ask(client, mode, [...LIST_TURN, { output: { id: "call_ghost", text: "x" } }]),
        BadRequestError,
      );
      assertEquals(
        error.message,
        mode.api === "chat"
          ? "400 Invalid parameter: messages with role 'tool' must be a response to a " +
            "preceeding message with 'tool_calls'."
          : "400 No tool call found for function call output with call_id call_ghost.",
      );
    });
  });

  Deno.test(`${name}: an unknown model answers 404 model_not_found`, async () => {
    await withModel(async (client) => {
      const error = await assertRejects(
        () => ask(client, mode, LIST_TURN, { model: "gpt-nonexistent" }),
        NotFoundError,
      );
      assertEquals(error.status, 404);
      assertEquals(error.code, "model_not_found");
      assertMatch(error.message, /`gpt-nonexistent` does not exist/);
    });
  });

  Deno.test(`${name}: the same request gives the same ids and output`, async () => {
    await withModel(async (client) => {
      const first = await ask(client, mode, LIST_TURN);
      const second = await ask(client, mode, LIST_TURN);
      assertEquals(JSON.stringify(second.raw), JSON.stringify(first.raw));
      const other = await ask(client, mode, [...LIST_TURN.slice(0, 1), {
        role: "user",
        content: "List the files in src",
      }]);
      assert(other.calls[0]!.callId !== first.calls[0]!.callId);
    });
  });
}

Deno.test("responses stream: events come in the real API's order with sequence numbers", async () => {
  await withModel(async (client) => {
    const stream = await client.responses.create({
      model: "scripted",
      input: [{ role: "user", content: "hello there" }],
      tools: TOOLS.map((t) => ({ type: "function" as const, strict: false, ...t })),
      stream: true,
      store: false,
    });
    const types: string[] = [];
    const numbers: number[] = [];
    let completed: Json;
    for await (const event of stream) {
      types.push(event.type);
      numbers.push(event.sequence_number);
      if (event.type === "response.completed") completed = event.response;
    }
    const deltas = types.filter((type) => type === "response.output_text.delta").length;
    assert(deltas > 1, "the text arrives in several deltas");
    assertEquals(types, [
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.content_part.added",
      ...Array(deltas).fill("response.output_text.delta"),
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.completed",
    ]);
    assertEquals(numbers, types.map((_, i) => i));
    assertEquals(completed.status, "completed");
    assertEquals(completed.output.length, 1);
    assertMatch(completed.output[0].content[0].text, /^I have seen 1 user message/);
    assertEquals(
      completed.usage.total_tokens,
      completed.usage.input_tokens + completed.usage.output_tokens,
    );
  });
});

Deno.test("responses stream: a call streams its arguments in deltas", async () => {
  await withModel(async (client) => {
    const stream = await client.responses.create({
      model: "scripted",
      input: [{ role: "user", content: "read README.md and src/mod.ts" }],
      tools: TOOLS.map((t) => ({ type: "function" as const, strict: false, ...t })),
      stream: true,
    });
    const args = new Map<number, string>();
    const done: Json[] = [];
    let completed: Json;
    for await (const event of stream) {
      if (event.type === "response.function_call_arguments.delta") {
        args.set(event.output_index, (args.get(event.output_index) ?? "") + event.delta);
      }
      if (event.type === "response.output_item.done") done.push(event.item);
      if (event.type === "response.completed") completed = event.response;
    }
    assertEquals(args.get(0), JSON.stringify({ path: "README.md" }));
    assertEquals(args.get(1), JSON.stringify({ path: "src/mod.ts" }));
    assertEquals(completed.output, done);
    assertEquals(done.map((item) => item.type), ["function_call", "function_call"]);
    assert(done[0].call_id !== done[1].call_id, "each call has its own id");
  });
});

Deno.test("chat stream: chunks carry the role, tool call deltas, finish_reason, then usage", async () => {
  await withModel(async (client) => {
    const stream = await client.chat.completions.create({
      model: "scripted",
      messages: [{ role: "user", content: "list the files in src" }],
      tools: TOOLS.map((t) => ({ type: "function" as const, function: t })),
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    assertEquals(chunks[0]!.choices[0]!.delta.role, "assistant");
    const first = chunks[1]!.choices[0]!.delta.tool_calls![0]!;
    assertEquals(first.index, 0);
    assertEquals(first.type, "function");
    assertEquals(first.function!.name, "list_dir");
    assertMatch(first.id!, /^call_/);
    const args = chunks.flatMap((chunk) =>
      chunk.choices.flatMap((choice) => choice.delta.tool_calls ?? [])
    ).map((call) => call.function?.arguments ?? "").join("");
    assertEquals(args, JSON.stringify({ path: "src" }));
    assertEquals(chunks.at(-2)!.choices[0]!.finish_reason, "tool_calls");
    const last = chunks.at(-1)!;
    assertEquals(last.choices, []);
    assert(last.usage!.prompt_tokens > 0);
    assertEquals(
      last.usage!.total_tokens,
      last.usage!.prompt_tokens + last.usage!.completion_tokens,
    );
  });
});

Deno.test("chat: a tool message must follow its assistant message directly", async () => {
  await withModel(async (client) => {
    const error = await assertRejects(
      () =>
        client.chat.completions.create({
          model: "scripted",
          messages: [
            { role: "user", content: "list" },
            {
              role: "assistant",
              content: null,
              tool_calls: [{
                id: "call_x",
                type: "function",
                function: { name: "list_dir", arguments: "{}" },
              }],
            },
            { role: "user", content: "interrupting" },
            { role: "tool", tool_call_id: "call_x", content: "a.txt" },
          ],
        }),
      BadRequestError,
    );
    assertEquals(
      error.message,
      "400 An assistant message with 'tool_calls' must be followed by tool messages responding " +
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: " +
        "call_x",
    );
  });
});

Deno.test("responses: an output must follow its call's block, before any message", async () => {
  await withModel(async (client) => {
    const error = await assertRejects(
      () =>
        client.responses.create({
          model: "scripted",
          input: [
            { role: "user", content: "list the files" },
            { type: "function_call", call_id: "call_x", name: "list_dir", arguments: "{}" },
            { role: "user", content: "interrupting" },
            { type: "function_call_output", call_id: "call_x", output: "a.txt" },
          ],
        }),
      BadRequestError,
    );
    assertEquals(error.message, "400 No tool output found for function call call_x.");
    assertEquals(error.param, "input[2]");
  });
});

Deno.test("responses: a call id answered twice, even in another turn, is refused as the real API does", async () => {
  await withModel(async (client) => {
    const turn = [
      { type: "function_call", call_id: "call_1", name: "list_dir", arguments: "{}" },
      { type: "function_call_output", call_id: "call_1", output: "a.txt" },
    ] as const;
    const error = await assertRejects(
      () =>
        client.responses.create({
          model: "scripted",
          input: [
            { role: "user", content: "list the files" },
            ...turn,
            { role: "user", content: "again" },
            ...turn,
          ],
        }),
      BadRequestError,
    );
    assertEquals(
      error.message,
      "400 Duplicate function_call_output for call_id call_1. Each function_call must have " +
        "exactly one matching function_call_output",
    );
    assertEquals([error.status, error.type, error.param], [
      400,
      "invalid_request_error",
      "input[5]",
    ]);
  });
});

Deno.test("http: a bad body names the field, a wrong path or key is refused", async () => {
  await using model = await startEmbeddedModel();
  const post = async (path: string, body: unknown, key = model.apiKey) => {
    const response = await fetch(`${model.baseURL}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  };
  assertEquals(
    await post("/responses", {
      model: "scripted",
      input: [{ type: "function_call", call_id: 7, name: "x", arguments: "{}" }],
    }),
    {
      status: 400,
      body: {
        error: {
          message: "Invalid type for 'input[0].call_id': expected string, received number.",
          type: "invalid_request_error",
          param: "input[0].call_id",
          code: null,
        },
      },
    },
  );
  const missing = await post("/chat/completions", { model: "scripted" });
  assertEquals(missing.status, 400);
  assertEquals(missing.body.error.message, "Missing required parameter: 'messages'.");
  assertEquals(missing.body.error.param, "messages");
  const notJson = await post("/responses", "{not json");
  assertEquals(notJson.status, 400);
  assertMatch(notJson.body.error.message, /could not parse the JSON body/);
  const wrongPath = await post("/completions", {});
  assertEquals(wrongPath.status, 404);
  assertEquals(wrongPath.body.error.message, "Invalid URL (POST /v1/completions)");
  const wrongKey = await post("/responses", { model: "scripted", input: "hi" }, "sk-other");
  assertEquals(wrongKey.status, 401);
  assertEquals(wrongKey.body.error.code, "invalid_api_key");
});

Deno.test("startEmbeddedModel: a model name of one's choosing, close is idempotent", async () => {
  const model = await startEmbeddedModel({ model: "stand-in" });
  assertMatch(model.baseURL, /^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  const client = new OpenAI({ baseURL: model.baseURL, apiKey: model.apiKey, maxRetries: 0 });
  const models = await client.models.list();
  assertEquals(models.data.map((m) => m.id), ["stand-in"]);
  const response = await client.responses.create({ model: "stand-in", input: "hello" });
  assertEquals(response.model, "stand-in");
  assertMatch(response.output_text, /^Goal:\n- hello\n/, "no tools: a summary request");
  await model.close();
  await model.close();
  await assertRejects(() => fetch(`${model.baseURL}/models`), TypeError);
});
