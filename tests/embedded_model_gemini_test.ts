/**
 * The embedded model's Gemini wire (`POST /v1beta/models/<model>:generateContent` and
 * `:streamGenerateContent?alt=sse`), over HTTP as Gemini CLI calls it: the response and its
 * stream, the calls of Gemini CLI's own tools, and the refusals of the real API in its words.
 */
import {
  GEMINI_RESPONSE_COUNT_MESSAGE,
  GEMINI_RESPONSE_TURN_MESSAGE,
  startEmbeddedModel,
} from "../src/embedded_model/mod.ts";
import { assert, assertEquals } from "./_assert.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const TOOLS = [{
  functionDeclarations: [
    { name: "read_file" },
    { name: "run_shell_command" },
    { name: "list_directory" },
  ],
}];

async function post(
  model: { geminiBaseURL: string; apiKey: string },
  body: Record<string, unknown>,
  options: { stream?: boolean; model?: string; key?: string } = {},
): Promise<{ status: number; body: Json; text: string }> {
  const method = options.stream ? "streamGenerateContent?alt=sse" : "generateContent";
  const url = `${model.geminiBaseURL}/v1beta/models/${options.model ?? "scripted"}:${method}`;
  const response = await fetch(url, {
    method: "POST",
    headers: { "x-goog-api-key": options.key ?? model.apiKey, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = response.headers.get("content-type")?.includes("json") ? JSON.parse(text) : null;
  return { status: response.status, body: json, text };
}

const user = (...parts: unknown[]) => ({ role: "user", parts });
const model = (...parts: unknown[]) => ({ role: "model", parts });
const text = (text: string) => ({ text });
const call = (name: string, args: unknown) => ({ functionCall: { name, args } });
const response = (name: string, output: string) => ({
  functionResponse: { name, response: { output } },
});

Deno.test("Gemini wire: read README.md calls read_file {file_path}, the context left out", async () => {
  await using m = await startEmbeddedModel();
  const context = text("<session_context>\nThe workspace is /w\n</session_context>");
  const got = await post(m, { contents: [user(context, text("read README.md"))], tools: TOOLS });
  assertEquals(got.status, 200);
  assertEquals(got.body.candidates, [{
    content: { role: "model", parts: [call("read_file", { file_path: "README.md" })] },
    finishReason: "STOP",
    index: 0,
  }]);
  assertEquals(Object.keys(got.body.usageMetadata), [
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
  ]);
});

Deno.test("Gemini wire: the stream carries the answer to a function response in chunks", async () => {
  await using m = await startEmbeddedModel();
  const got = await post(m, {
    contents: [
      user(text("run `ls`")),
      model(call("run_shell_command", { command: "ls", description: "Run ls" })),
      user(response("run_shell_command", "a.txt")),
    ],
    tools: TOOLS,
  }, { stream: true });
  assertEquals(got.status, 200);
  const chunks = got.text.trim().split("\n\n").map((block) => JSON.parse(block.slice(6)));
  const said = chunks.map((chunk) => chunk.candidates[0].content.parts[0].text).join("");
  assertEquals(said, "run_shell_command(ls) returned: a.txt");
  assert(chunks.length > 1, `${chunks.length} chunk(s)`);
  assertEquals(chunks.at(-1).candidates[0].finishReason, "STOP");
  assert(chunks.at(-1).usageMetadata !== undefined, "the usage comes with the last chunk");
  assertEquals(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined), true);
});

Deno.test("Gemini wire: run with backquoted commands calls run_shell_command once each", async () => {
  await using m = await startEmbeddedModel();
  const got = await post(m, { contents: [user(text("run `pwd` and `ls`"))], tools: TOOLS });
  assertEquals(got.body.candidates[0].content.parts, [
    call("run_shell_command", { command: "pwd", description: "Run pwd" }),
    call("run_shell_command", { command: "ls", description: "Run ls" }),
  ]);
});

Deno.test("Gemini wire: the real API's 400 for function responses that do not match the calls", async () => {
  await using m = await startEmbeddedModel();
  const asked = [user(text("read a.txt")), model(call("read_file", { file_path: "a.txt" }))];
  const twice = await post(m, {
    contents: [...asked, user(response("read_file", "A"), response("read_file", "A"))],
    tools: TOOLS,
  });
  const error = { code: 400, message: GEMINI_RESPONSE_COUNT_MESSAGE, status: "INVALID_ARGUMENT" };
  assertEquals([twice.status, twice.body], [400, { error }]);
  assertEquals(
    GEMINI_RESPONSE_COUNT_MESSAGE,
    "Please ensure that the number of function response parts is equal to the number of " +
      "function call parts of the function call turn.",
  );
  const none = await post(m, { contents: [...asked, user(text("go on"))], tools: TOOLS });
  assertEquals([none.status, none.body], [400, { error }]);
  const orphan = await post(m, {
    contents: [user(text("hi")), model(text("hello")), user(response("read_file", "A"))],
    tools: TOOLS,
  });
  assertEquals(orphan.body.error.message, GEMINI_RESPONSE_TURN_MESSAGE);
});

Deno.test("Gemini wire: a wrong key and an unknown model in Google's words", async () => {
  await using m = await startEmbeddedModel();
  const body = { contents: [user(text("hi"))] };
  const key = await post(m, body, { key: "nope" });
  assertEquals([key.status, key.body.error.message], [
    400,
    "API key not valid. Please pass a valid API key.",
  ]);
  const unknown = await post(m, body, { model: "gemini-9" });
  assertEquals([unknown.status, unknown.body.error.status], [404, "NOT_FOUND"]);
});
