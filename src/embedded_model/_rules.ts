/**
 * The embedded model's answer rules: a pure, deterministic function from a request
 * (conversation + offered tools) to a reply (text or tool calls). No clock, no randomness.
 *
 * The rules work from the last user message and the items after it; the first that matches
 * wins. A tool rule applies only when the request offers that tool, else the next rule is tried.
 *
 * | #  | When | Reply |
 * | -- | ---- | ----- |
 * | 1  | the request has no tools (a compaction request) | a summary in six sections: Goal, Decisions, Files touched, Work done, Work left, Errors |
 * | 2  | tool outputs follow the last user message | an answer about each output, in order: one starting `Error [SESSION_RESUME_INTERRUPTED]`: "was interrupted"; `Error`: "failed" + its first line; `Cancelled`: "was cancelled"; a first line saying denied / not approved / rejected: acknowledged, not retried; else the output quoted (at most 12 lines) |
 * | 3  | continue / retry / resume / again / finish, and the latest tool output of the whole conversation is an `Error [SESSION_RESUME_INTERRUPTED]` one | that call again: same name and arguments, new call id |
 * | 3a | run / exec / execute and commands in backquotes, `exec_command` offered (Codex's shell) | one `exec_command {cmd}` per backquoted command, all in one response (parallel calls) |
 * | 3b | `Bash` is offered and the message quotes commands in backticks (run `echo hi`) | one `Bash {command, description}` per quoted command, all in one message (parallel calls) |
 * | 4  | "what did I ask / say", recall, or history (with no path in the message) | a numbered list of the earlier user messages |
 * | 5  | write / create / save and a path | `write_file {path, content}`, content = the quoted text; else the words between the verb and "to / into / in <path>", or after "with / containing"; "" when none |
 * | 6  | read / open / show / cat / view / print and a path | one `read_file {path}` per path in the message |
 * | 7  | search / grep / find and a text (quoted, else the next word) | `search_text {pattern}`, plus `path` for "in <word>" |
 * | 8  | list / ls / files / dir / directory / folder | `list_dir {path}`: the first path, else the word after "in", else "." |
 * | 9  | slow / wait / sleep / long | `slow_task {seconds}`: the first number in the message, else 3 |
 * | 10 | anything else | "I have seen N user messages in this conversation. You said: ..." |
 *
 * Words match case-insensitively as whole words. A path is a word with a `/` or a file
 * extension (`notes.txt`), or `.`; a quoted one counts when no unquoted one exists. A
 * compaction summary (a user message starting "Summary of the earlier conversation:") is
 * context, not a user message: it is not counted, recalled or taken as the last message.
 *
 * @module
 */
import {
  type ConversationItem,
  type ConversationRequest,
  isSummaryMessage,
  type PlannedCall,
  type Reply,
  SUMMARY_PREFIX,
} from "./_conversation.ts";
import { TRANSCRIPT_HEADING } from "../compaction/mod.ts";
import {
  backquoted,
  CONTINUE_WORDS,
  FILLER_WORDS,
  gist,
  HERE_WORDS,
  LIST_WORDS,
  pathsOf,
  READ_WORDS,
  RUN_WORDS,
  SEARCH_WORDS,
  SLOW_WORDS,
  unquotedContent,
  wordAfter,
  wordsOf,
  WRITE_WORDS,
} from "./_words.ts";
import { INTERRUPTED_CODE } from "../history/mod.ts";

/** How a synthesized output for an interrupted call starts. */
const INTERRUPTED_PREFIX = `Error [${INTERRUPTED_CODE}]`;
/** The most lines of one tool output an answer quotes. */
const QUOTED_LINES = 12;
/** The default duration of `slow_task`, in seconds. */
const DEFAULT_SLOW_SECONDS = 3;

type Message = Extract<ConversationItem, { kind: "message" }>;
type Call = Extract<ConversationItem, { kind: "call" }>;
type Output = Extract<ConversationItem, { kind: "output" }>;

/**
 * Decides the embedded model's reply to a request. Pure and deterministic.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decideReply } from "./mod.ts";
 * const reply = decideReply({
 *   items: [{ kind: "message", role: "user", text: "list the files" }],
 *   toolNames: ["list_dir"],
 * });
 * assert(reply.kind === "calls" && reply.calls[0]?.name === "list_dir");
 * ```
 */
export function decideReply(request: ConversationRequest): Reply {
  const { items, toolNames } = request;
  if (toolNames.length === 0) return { kind: "text", text: summarize(items) };

  const lastUser = lastUserIndex(items);
  const after = items.slice(lastUser + 1);
  const outputs = after.filter((item): item is Output => item.kind === "output");
  if (outputs.length > 0) return { kind: "text", text: answerFromOutputs(items, outputs) };

  const message = lastUser >= 0 ? (items[lastUser] as Message).text : "";
  const offers = (name: string) => toolNames.includes(name);
  const words = wordsOf(message);
  const has = (list: string[]) => list.some((word) => words.includes(word));
  const { paths, quoted } = pathsOf(message);

  if (has(CONTINUE_WORDS)) {
    const retry = interruptedCall(items);
    if (retry && offers(retry.name)) {
      return { kind: "calls", calls: [{ name: retry.name, arguments: retry.arguments }] };
    }
  }
  const commands = backquoted(message);
  if (commands.length > 0 && has(RUN_WORDS) && offers("exec_command")) {
    return {
      kind: "calls",
      calls: commands.map((cmd) => ({ name: "exec_command", arguments: JSON.stringify({ cmd }) })),
    };
  }
  const bash = bashCalls(commands, toolNames);
  if (bash) return bash;
  if (
    /\bwhat did i (ask|say|write|type)\b/i.test(message) || has(["recall"]) ||
    (has(["history"]) && paths.length === 0)
  ) {
    return { kind: "text", text: recall(items, lastUser) };
  }
  if (has(WRITE_WORDS) && paths[0] !== undefined && offers("write_file")) {
    const path = paths[0];
    const content = quoted.find((text) => text !== path) ?? unquotedContent(message, path);
    return call("write_file", { path, content });
  }
  if (has(READ_WORDS) && paths.length > 0 && offers("read_file")) {
    return {
      kind: "calls",
      calls: paths.map((path) => ({ name: "read_file", arguments: JSON.stringify({ path }) })),
    };
  }
  if (has(SEARCH_WORDS) && offers("search_text")) {
    const pattern = quoted[0] ?? wordAfter(message, SEARCH_WORDS, FILLER_WORDS);
    if (pattern !== undefined) {
      const inPath = wordAfter(message, ["in", "under"], ["the"]);
      const path = inPath !== undefined && !HERE_WORDS.includes(inPath.toLowerCase())
        ? inPath
        : undefined;
      return call("search_text", path === undefined ? { pattern } : { pattern, path });
    }
  }
  if (has(LIST_WORDS) && offers("list_dir")) {
    const inPath = wordAfter(message, ["in", "under"], ["the"]);
    const path = paths[0] ??
      (inPath !== undefined && !HERE_WORDS.includes(inPath.toLowerCase()) ? inPath : ".");
    return call("list_dir", { path });
  }
  if (has(SLOW_WORDS) && offers("slow_task")) {
    const number = message.match(/\d+(\.\d+)?/)?.[0];
    return call("slow_task", {
      seconds: number === undefined ? DEFAULT_SLOW_SECONDS : Number(number),
    });
  }
  return { kind: "text", text: plainAnswer(items, message) };
}

/** Claude Code's shell tool: one call per command the message quotes in backticks. */
function bashCalls(commands: string[], toolNames: readonly string[]): Reply | undefined {
  if (!toolNames.includes("Bash") || commands.length === 0) return undefined;
  return {
    kind: "calls",
    calls: commands.map((command) => ({
      name: "Bash",
      arguments: JSON.stringify({ command, description: `Run ${gist(command, 40)}` }),
    })),
  };
}

function call(name: string, args: Record<string, unknown>): Reply {
  const planned: PlannedCall = { name, arguments: JSON.stringify(args) };
  return { kind: "calls", calls: [planned] };
}

/** The index of the last user message; a summary counts only when no real one exists. */
function lastUserIndex(items: readonly ConversationItem[]): number {
  let summary = -1;
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== "message" || item.role !== "user") continue;
    if (!isSummaryMessage(item)) return i;
    if (summary < 0) summary = i;
  }
  return summary;
}

function userMessages(items: readonly ConversationItem[]): Message[] {
  return items.filter((item): item is Message =>
    item.kind === "message" && item.role === "user" && !isSummaryMessage(item)
  );
}

/** The call of the most recent tool output, when that output says the call was interrupted. */
function interruptedCall(items: readonly ConversationItem[]): Call | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i]!;
    if (item.kind !== "output") continue;
    if (!item.output.startsWith(INTERRUPTED_PREFIX)) return undefined;
    return callFor(items, item.callId);
  }
  return undefined;
}

function callFor(items: readonly ConversationItem[], callId: string): Call | undefined {
  return items.find((item): item is Call => item.kind === "call" && item.callId === callId);
}

/** A short human label of a call: `read_file(notes.txt)`, `slow_task(3s)`. */
function describeCall(call: Call | undefined): string {
  if (call === undefined) return "a tool call";
  let args: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(call.arguments);
    if (parsed !== null && typeof parsed === "object") args = parsed;
  } catch {
    return `${call.name}(${call.arguments})`;
  }
  if (call.name === "slow_task" && typeof args.seconds === "number") {
    return `slow_task(${args.seconds}s)`;
  }
  if (call.name === "search_text" && typeof args.pattern === "string") {
    const where = typeof args.path === "string" ? ` in ${args.path}` : "";
    return `search_text("${args.pattern}"${where})`;
  }
  if (typeof args.path === "string") return `${call.name}(${args.path})`;
  if (typeof args.command === "string") return `${call.name}(${args.command})`;
  return `${call.name}(${call.arguments})`;
}

function isDenied(output: string): boolean {
  return /\b(denied|not approved|rejected)\b/i.test(output.split("\n")[0] ?? "");
}

function answerFromOutputs(items: readonly ConversationItem[], outputs: Output[]): string {
  return outputs.map((output) => {
    const label = describeCall(callFor(items, output.callId));
    const text = output.output;
    if (text.startsWith(INTERRUPTED_PREFIX)) {
      return `The earlier call ${label} was interrupted before it finished, so its result is ` +
        "unknown. Ask me to continue and I will run it again.";
    }
    const lines = text.replace(/\n+$/, "").split("\n");
    if (/^error\b/i.test(text)) return `${label} failed: ${lines[0]}`;
    if (/^cancelled\b/i.test(text)) return `The call ${label} was cancelled: ${lines[0]}`;
    if (isDenied(text)) {
      return `The call ${label} was denied, so I did not run it and I will not retry it.`;
    }
    if (lines.length === 1) return `${label} returned: ${lines[0]}`;
    const shown = lines.slice(0, QUOTED_LINES).map((line) => `  ${line}`);
    if (lines.length > QUOTED_LINES) shown.push(`  (${lines.length - QUOTED_LINES} more lines)`);
    return `${label} returned ${lines.length} lines:\n${shown.join("\n")}`;
  }).join("\n\n");
}

function recall(items: readonly ConversationItem[], lastUser: number): string {
  const earlier = userMessages(items.slice(0, Math.max(lastUser, 0)));
  const compacted = items.some(isSummaryMessage)
    ? "\n(An earlier part of the conversation was compacted into a summary.)"
    : "";
  if (earlier.length === 0) {
    return `This is your first message in this conversation; there is nothing earlier to recall.${compacted}`;
  }
  const list = earlier.map((message, i) => `${i + 1}. ${gist(message.text)}`).join("\n");
  const things = earlier.length === 1 ? "1 thing" : `${earlier.length} things`;
  return `Before this message you asked me ${things}:\n${list}${compacted}`;
}

function plainAnswer(items: readonly ConversationItem[], message: string): string {
  const count = userMessages(items).length;
  const seen = count === 1 ? "1 user message" : `${count} user messages`;
  return `I have seen ${seen} in this conversation. You said: "${gist(message)}". ` +
    "I am the embedded deterministic model: ask me to list, read, search or write files, " +
    "or to run a slow task.";
}

const SECTIONS = ["Goal", "Decisions", "Files touched", "Work done", "Work left", "Errors"];

/** The sections of an earlier summary found in the conversation, to carry them forward. */
function earlierSections(items: readonly ConversationItem[]): Map<string, string[]> {
  const sections = new Map<string, string[]>();
  for (const item of items) {
    if (!isSummaryMessage(item) || item.kind !== "message") continue;
    let current: string | undefined;
    for (const line of item.text.slice(SUMMARY_PREFIX.length).split("\n")) {
      const header = SECTIONS.find((name) => line === `${name}:`);
      if (header !== undefined) {
        current = header;
      } else if (current !== undefined && line.startsWith("- ") && line !== "- none") {
        sections.set(current, [...(sections.get(current) ?? []), line.slice(2)]);
      }
    }
  }
  return sections;
}

const TRANSCRIPT_HEADER =
  /^\[(?:(user|assistant|system)|(summary of an earlier part)|tool call (\S+) (\S+)|tool output (\S+) (\S+?)(?:, error)?|\d+ earlier items? omitted)\]$/;

/**
 * The conversation inside a summary request: turnlog sends the history rendered as one text
 * (`[user]`, `[tool call name id]`, `[tool output name id]`, ... headers, each followed by its
 * content), which a language model reads as it is; the stand-in parses it back into items.
 * Any other request is summarized from its own items.
 */
function summarizedConversation(items: readonly ConversationItem[]): ConversationItem[] {
  const transcript = items.find((item) =>
    item.kind === "message" && item.role === "user" && item.text.startsWith(TRANSCRIPT_HEADING)
  );
  if (transcript?.kind !== "message") return [...items];
  const parsed: ConversationItem[] = [];
  let body: string[] | undefined;
  let make: ((text: string) => ConversationItem) | undefined;
  const flush = () => {
    if (make && body) parsed.push(make(body.join("\n").trim()));
  };
  for (const line of transcript.text.slice(TRANSCRIPT_HEADING.length).split("\n")) {
    const header = TRANSCRIPT_HEADER.exec(line);
    if (!header) {
      body?.push(line);
      continue;
    }
    flush();
    body = [];
    const [, role, summary, callName, callId, outputName, outputId] = header;
    if (role) make = (text) => ({ kind: "message", role: role as "user", text });
    else if (summary) {
      make = (text) => ({ kind: "message", role: "user", text: SUMMARY_PREFIX + text });
    } else if (callName && callId) {
      make = (text) => ({ kind: "call", callId, name: callName, arguments: text });
    } else if (outputName && outputId) {
      make = (text) => ({ kind: "output", callId: outputId, output: text });
    } else make = undefined;
  }
  flush();
  return parsed;
}

/** The deterministic compaction summary of a conversation. */
function summarize(request: readonly ConversationItem[]): string {
  const items = summarizedConversation(request);
  const sections = earlierSections(items);
  const add = (name: string, line: string) => {
    const list = sections.get(name) ?? [];
    if (!list.includes(line)) list.push(line);
    sections.set(name, list);
  };
  const users = userMessages(items).filter((message) => !/\bsummar/i.test(message.text));
  if (!sections.has("Goal") && users[0] !== undefined) add("Goal", gist(users[0].text, 200));
  for (const item of items) {
    if (item.kind !== "output") continue;
    const call = callFor(items, item.callId);
    const label = describeCall(call);
    if (call !== undefined) {
      try {
        const path = JSON.parse(call.arguments)?.path;
        if (typeof path === "string") add("Files touched", `${path} (${call.name})`);
      } catch {
        // Arguments that are not JSON name no file.
      }
    }
    const firstLine = item.output.split("\n")[0] ?? "";
    if (item.output.startsWith(INTERRUPTED_PREFIX)) {
      add("Work left", `${label}: interrupted, not known to have finished`);
      add("Errors", `${label}: interrupted`);
    } else if (/^(error|cancelled)\b/i.test(item.output)) {
      add("Errors", `${label}: ${gist(firstLine)}`);
    } else if (isDenied(item.output)) {
      add("Decisions", `${label} was denied; not to be retried`);
    } else {
      const lines = item.output.replace(/\n+$/, "").split("\n").length;
      add("Work done", `${label}: ${lines === 1 ? gist(firstLine) : `${lines} lines`}`);
    }
  }
  const last = users.at(-1);
  const lastIndex = last === undefined ? -1 : items.indexOf(last);
  const answered = items.slice(lastIndex + 1).some((item) =>
    item.kind === "message" && item.role === "assistant"
  );
  if (last !== undefined && !answered) add("Work left", `answer: ${gist(last.text)}`);
  for (const message of users.slice(1)) add("Decisions", `user asked: ${gist(message.text)}`);
  const body = SECTIONS.map((name) => {
    const list = sections.get(name) ?? [];
    return `${name}:\n${list.length === 0 ? "- none" : list.map((line) => `- ${line}`).join("\n")}`;
  });
  const count = users.length === 1 ? "1 user message" : `${users.length} user messages`;
  return `${body.join("\n")}\n(${count} summarized)`;
}
