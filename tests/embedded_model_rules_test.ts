/**
 * The embedded model's answer rules as a pure function: each documented rule, its order, and
 * the cases where it must not fire.
 */
import { type ConversationItem, decideReply, type Reply } from "../src/embedded_model/mod.ts";
import { chunkText } from "../src/embedded_model/_sse.ts";
import { assertEquals, assertMatch } from "./_assert.ts";

const ALL_TOOLS = ["list_dir", "read_file", "search_text", "write_file", "slow_task"];
const user = (text: string): ConversationItem => ({ kind: "message", role: "user", text });
const assistant = (text: string): ConversationItem => ({
  kind: "message",
  role: "assistant",
  text,
});
const call = (callId: string, name: string, args: unknown): ConversationItem => ({
  kind: "call",
  callId,
  name,
  arguments: JSON.stringify(args),
});
const output = (callId: string, text: string): ConversationItem => ({
  kind: "output",
  callId,
  output: text,
});
const INTERRUPTED = "Error [SESSION_RESUME_INTERRUPTED]: This tool call (slow_task) did not finish";

function reply(items: ConversationItem[], toolNames = ALL_TOOLS): Reply {
  return decideReply({ items, toolNames });
}
function calls(message: string, toolNames = ALL_TOOLS): unknown[] {
  const answer = reply([user(message)], toolNames);
  return answer.kind === "calls"
    ? answer.calls.map((c) => ({ [c.name]: JSON.parse(c.arguments) }))
    : [];
}
function text(items: ConversationItem[], toolNames = ALL_TOOLS): string {
  const answer = reply(items, toolNames);
  return answer.kind === "text" ? answer.text : `calls: ${JSON.stringify(answer.calls)}`;
}

Deno.test("rules: keywords become tool calls with the arguments the contract fixes", () => {
  assertEquals(calls("List the files"), [{ list_dir: { path: "." } }]);
  assertEquals(calls("ls src/lib"), [{ list_dir: { path: "src/lib" } }]);
  assertEquals(calls("list the files in src"), [{ list_dir: { path: "src" } }]);
  assertEquals(calls("list the files in this folder"), [{ list_dir: { path: "." } }]);
  assertEquals(calls("Read README.md."), [{ read_file: { path: "README.md" } }]);
  assertEquals(calls("show me src/mod.ts and deno.json"), [
    { read_file: { path: "src/mod.ts" } },
    { read_file: { path: "deno.json" } },
  ]);
  assertEquals(calls('open "my notes.txt"'), [{ read_file: { path: "my notes.txt" } }]);
  assertEquals(calls("search for TODO in the src folder"), [
    { search_text: { pattern: "TODO", path: "src" } },
  ]);
  assertEquals(calls('grep "fn main"'), [{ search_text: { pattern: "fn main" } }]);
  assertEquals(calls('write notes.txt with "hello world"'), [
    { write_file: { path: "notes.txt", content: "hello world" } },
  ]);
  assertEquals(calls("write hello to out.txt"), [
    { write_file: { path: "out.txt", content: "hello" } },
  ]);
  assertEquals(calls("save the text see you soon into notes/later.md"), [
    { write_file: { path: "notes/later.md", content: "see you soon" } },
  ]);
  assertEquals(calls("create todo.txt with buy milk"), [
    { write_file: { path: "todo.txt", content: "buy milk" } },
  ]);
  assertEquals(calls("create out/empty.txt"), [
    { write_file: { path: "out/empty.txt", content: "" } },
  ]);
  assertEquals(calls("run a slow task for 7 seconds"), [{ slow_task: { seconds: 7 } }]);
  assertEquals(calls("wait a bit"), [{ slow_task: { seconds: 3 } }]);
});

Deno.test("rules: a tool the request does not offer is never called", () => {
  assertEquals(calls("write notes.txt", ["read_file"]), []);
  assertMatch(text([user("list the files")], ["read_file"]), /^I have seen 1 user message/);
  // "show" without a path is no read: it falls through to the list rule.
  assertEquals(calls("show the files"), [{ list_dir: { path: "." } }]);
});

Deno.test("rules: outputs after the last user message are quoted, denied and failed ones said so", () => {
  const items = [
    user("read a.txt and b.txt"),
    call("c1", "read_file", { path: "a.txt" }),
    call("c2", "read_file", { path: "b.txt" }),
    output("c1", "first line"),
    output("c2", "Error: b.txt does not exist"),
  ];
  assertEquals(
    text(items),
    "read_file(a.txt) returned: first line\n\nread_file(b.txt) failed: Error: b.txt does not exist",
  );
  const denied = [
    user('write x.txt with "y"'),
    call("c3", "write_file", { path: "x.txt", content: "y" }),
    output("c3", "Approval denied: no terminal. The user did not allow this write_file call."),
  ];
  assertEquals(
    text(denied),
    "The call write_file(x.txt) was denied, so I did not run it and I will not retry it.",
  );
  // A tool error that mentions "denied" is a failure, not an approval decision.
  const failed = [
    user("read secret.txt"),
    call("c5", "read_file", { path: "secret.txt" }),
    output("c5", "Error: Permission denied for secret.txt"),
  ];
  assertEquals(
    text(failed),
    "read_file(secret.txt) failed: Error: Permission denied for secret.txt",
  );
  const cancelled = [
    user("wait 9"),
    call("c6", "slow_task", { seconds: 9 }),
    output(
      "c6",
      "Cancelled: the run was cancelled while slow_task was running; it did not finish.",
    ),
  ];
  assertMatch(text(cancelled), /^The call slow_task\(9s\) was cancelled: Cancelled: the run/);
  const long = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join("\n");
  const quoted = text([user("ls"), call("c4", "list_dir", { path: "." }), output("c4", long)]);
  assertMatch(quoted, /^list_dir\(\.\) returned 15 lines:\n {2}line 1\n/);
  assertMatch(quoted, / {2}line 12\n {2}\(3 more lines\)$/);
});

Deno.test("rules: an interrupted output is reported, and retried only when asked to continue", () => {
  const interrupted = [
    user("run a slow task for 5 seconds"),
    call("c1", "slow_task", { seconds: 5 }),
    output("c1", INTERRUPTED),
  ];
  assertMatch(text(interrupted), /^The earlier call slow_task\(5s\) was interrupted/);
  const retried = reply([...interrupted, user("Resume the work")]);
  assertEquals(retried, {
    kind: "calls",
    calls: [{ name: "slow_task", arguments: JSON.stringify({ seconds: 5 }) }],
  });
  // Once a later output exists, "again" no longer retries the interrupted call.
  const later = [
    ...interrupted,
    user("list the files"),
    call("c2", "list_dir", { path: "." }),
    output("c2", "a.txt"),
    assistant("list_dir(.) returned: a.txt"),
    user("continue"),
  ];
  assertMatch(text(later), /^I have seen 3 user messages in this conversation/);
});

Deno.test("rules: recall lists earlier user messages, a compaction summary is not one", () => {
  const summary = user("Summary of the earlier conversation:\nGoal:\n- list files");
  assertEquals(
    text([summary, user("hello"), assistant("hi"), user("What did I ask?")]),
    "Before this message you asked me 1 thing:\n1. hello\n" +
      "(An earlier part of the conversation was compacted into a summary.)",
  );
  assertEquals(
    text([user("recall please")]),
    "This is your first message in this conversation; there is nothing earlier to recall.",
  );
  // A path in the message makes "history" a file name, not a recall.
  assertEquals(calls("read history.md"), [{ read_file: { path: "history.md" } }]);
});

Deno.test("rules: a summary request carries an earlier summary's sections forward", () => {
  const items = [
    user(
      "Summary of the earlier conversation:\nGoal:\n- tidy the notes\nDecisions:\n- none\n" +
        "Files touched:\n- notes.txt (read_file)\nWork done:\n- none\nWork left:\n- none\n" +
        "Errors:\n- none\n(1 user message summarized)",
    ),
    user("write notes.txt"),
    call("c1", "write_file", { path: "notes.txt", content: "" }),
    output("c1", "Denied by the user"),
    assistant("ok"),
  ];
  assertEquals(
    text(items, []),
    [
      "Goal:",
      "- tidy the notes",
      "Decisions:",
      "- write_file(notes.txt) was denied; not to be retried",
      "Files touched:",
      "- notes.txt (read_file)",
      "- notes.txt (write_file)",
      "Work done:",
      "- none",
      "Work left:",
      "- none",
      "Errors:",
      "- none",
      "(1 user message summarized)",
    ].join("\n"),
  );
});

Deno.test("chunkText: pieces add up to the text and break after spaces", () => {
  const sample = "The quick brown fox jumps over the lazy dog, twice over.";
  const pieces = chunkText(sample, 12);
  assertEquals(pieces.join(""), sample);
  assertEquals(pieces[0], "The quick ");
  assertEquals(chunkText("", 12), []);
  assertEquals(chunkText("abcdefghij", 4), ["abcd", "efgh", "ij"]);
});
