/**
 * The embedded model as Codex CLI's API: the `exec_command` rule (one call per backquoted
 * command, parallel calls in one response), and requests in Codex's shape (tools of other
 * types, items with ids, reasoning, custom tool calls) judged as the real Responses API judges
 * them.
 */
import { decideReply, startEmbeddedModel } from "../src/embedded_model/mod.ts";
import { assertEquals } from "./_assert.ts";

const CODEX_TOOLS = [
  {
    type: "function",
    name: "exec_command",
    description: "Runs a command",
    strict: false,
    parameters: {},
  },
  { type: "namespace", name: "multi_agent_v1", description: "Agents", tools: [] },
  { type: "web_search", external_web_access: false },
  { type: "custom", name: "apply_patch", description: "Patch", format: { type: "grammar" } },
];

Deno.test("rules: run with backquoted commands becomes one exec_command per command, when offered", () => {
  const ask = (text: string, tools: string[]) =>
    decideReply({ items: [{ kind: "message", role: "user", text }], toolNames: tools });
  assertEquals(ask("run `echo hi` and `sleep 30`", ["exec_command", "write_stdin"]), {
    kind: "calls",
    calls: [
      { name: "exec_command", arguments: '{"cmd":"echo hi"}' },
      { name: "exec_command", arguments: '{"cmd":"sleep 30"}' },
    ],
  });
  assertEquals(ask("run `pwd`", ["read_file"]).kind, "text");
  assertEquals(ask("the `pwd` command", ["exec_command"]).kind, "text");
});

async function post(body: Record<string, unknown>) {
  await using model = await startEmbeddedModel();
  const response = await fetch(`${model.baseURL}/responses`, {
    method: "POST",
    headers: { authorization: `Bearer ${model.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ model: model.model, tools: CODEX_TOOLS, store: false, ...body }),
  });
  return { status: response.status, body: await response.json() };
}

Deno.test("responses: a request in Codex's shape is accepted, its calls answered, custom calls paired", async () => {
  const input = [
    {
      type: "message",
      id: "msg_1",
      role: "developer",
      content: [{ type: "input_text", text: "Be precise." }],
    },
    {
      type: "message",
      id: "msg_2",
      role: "user",
      content: [{ type: "input_text", text: "patch it" }],
    },
    { type: "reasoning", id: "rs_1", summary: [], encrypted_content: "gAAAA" },
    {
      type: "custom_tool_call",
      id: "ctc_1",
      call_id: "call_p",
      name: "apply_patch",
      input: "*** Begin Patch",
    },
    { type: "custom_tool_call_output", call_id: "call_p", output: "Done" },
    { type: "web_search_call", id: "ws_1", status: "completed", action: { type: "search" } },
    { type: "message", role: "user", content: [{ type: "input_text", text: "run `echo hi`" }] },
  ];
  const accepted = await post({ input });
  assertEquals(accepted.status, 200, JSON.stringify(accepted.body));
  assertEquals(
    accepted.body.output.map((
      item: Record<string, unknown>,
    ) => [item.type, item.name, item.arguments]),
    [["function_call", "exec_command", '{"cmd":"echo hi"}']],
  );
  const unanswered = await post({
    input: input.filter((item) => item.type !== "custom_tool_call_output"),
  });
  assertEquals(unanswered.status, 400);
  assertEquals(unanswered.body.error.message, "No tool output found for function call call_p.");
});

Deno.test("responses: a developer message between a call and its output is accepted, a user message is not", async () => {
  const around = (role: string) => [
    { type: "message", role: "user", content: "run `make`" },
    { type: "function_call", call_id: "call_m", name: "exec_command", arguments: '{"cmd":"make"}' },
    { type: "message", role, content: "Approval granted." },
    { type: "function_call_output", call_id: "call_m", output: "built" },
  ];
  // Codex sends this shape (a real session went on after it).
  assertEquals((await post({ input: around("developer") })).status, 200);
  const refused = await post({ input: around("user") });
  assertEquals(refused.status, 400);
  assertEquals(refused.body.error.message, "No tool output found for function call call_m.");
});
