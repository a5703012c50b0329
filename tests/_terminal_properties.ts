/**
 * The property that no command prints a raw control character taken from a session: random
 * text (escape sequences, C1, CR, DEL, bidi overrides and isolates among plain characters) put
 * in every field of a Codex rollout and of a turnlog session, then shown by inspect's views
 * (text, `--json`, `--repair`, `--history`) and by resume's printer of a turn's events.
 *
 * @module
 */
import fc from "fast-check";
import { join } from "node:path";
import { run as runInspect } from "../cli/inspect.ts";
import { EventPrinter } from "../cli/_render.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import type { RunEvent } from "../src/runtime/mod.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";

/** What must never reach a terminal raw (tab and newline may: the views keep them). */
// deno-lint-ignore no-control-regex
export const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028-\u202e\u2066-\u2069]/;

const HOSTILE_UNITS = [
  "\x1b]52;c;cHduZWQ=\x07", // OSC 52: set the clipboard
  "\x1b]8;;https://x.example\x1b\\", // OSC 8: a hyperlink
  "\x1b[2J",
  "\x1b",
  "\r",
  "\x7f",
  "\x9b",
  "\x85",
  "\x00",
  "\t",
  "\n",
  "\u202e",
  "\u2066",
  "\u2069",
  "\u2028",
];

/** Random session text: hostile pieces among plain ones. */
export const hostileText: fc.Arbitrary<string> = fc.array(
  fc.oneof(fc.constantFrom(...HOSTILE_UNITS), fc.string({ maxLength: 4 })),
  { minLength: 1, maxLength: 8 },
).map((parts) => parts.join(""));

/** A Codex rollout with `text` in its id, folder, prompt, call, output and answer. */
function codexRollout(text: string): string {
  return new CodexRolloutBuilder()
    .meta({ id: `019c8a4c-0000-7000-8000-00000000000${text}`, cwd: `/w/${text}` })
    .turnContext({ model: `m${text}` })
    .prompt(`p${text}`)
    .call(`c${text}`, `n${text}`, JSON.stringify({ cmd: text }))
    .output(`c${text}`, `o${text}`)
    .call(`orphan${text}`, `n${text}`)
    .answer(`a${text}`)
    .raw(`{"broken${text}`)
    .text();
}

/** A turnlog session with `text` in its messages, call and output; returns its path. */
async function turnlogSession(root: string, text: string): Promise<string> {
  const session = await initializeSessionForRun({
    message: `u${text}`,
    root,
    systemPrompt: `s${text}`,
    cwd: `/w/${text}`,
    modelProvider: "embedded",
    model: `m${text}`,
  });
  await session.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: `c${text}`,
      name: `n${text}`,
      arguments: text,
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: `c${text}`,
      toolName: `n${text}`,
      output: `o${text}`,
      isError: false,
    }),
    responseItemRecord({ type: "function_call", callId: `d${text}`, name: "n", arguments: "{}" }),
    makeRecord("run_finished", {
      runId: session.runId,
      outcome: "failed",
      rounds: 1,
      usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
      error: `e${text}`,
    }),
  ]);
  session.writer.close();
  return session.location.path;
}

/** Everything inspect prints about the file, in its text, JSON, repair and history views. */
async function inspectOutputs(path: string): Promise<string> {
  let printed = "";
  const sink = (text: string) => {
    printed += text;
    return Promise.resolve();
  };
  for (const flags of [[], ["--json"], ["--repair"], ["--repair", "--json"], ["--history"]]) {
    await runInspect([path, ...flags], { out: sink, err: sink });
  }
  return printed;
}

/** A turn's events as resume prints them, every text in them `text`. */
function printedEvents(text: string): string {
  let printed = "";
  const printer = new EventPrinter({ write: (t) => void (printed += t), colour: false });
  const events: RunEvent[] = [
    {
      type: "run_started",
      runId: `r${text}`,
      sessionId: `s${text}`,
      resumed: true,
      policy: { approval: "ask-changes" },
      model: `m${text}`,
      modelProvider: `p${text}`,
      wireApi: "responses",
      endpoint: `e${text}`,
      workspace: `/w/${text}`,
      sessionPath: `/s/${text}`,
      recordCountBefore: 1,
    },
    {
      type: "session_repaired",
      synthesized: 1,
      callIds: [`c${text}`],
      outputs: [{ callId: `c${text}`, toolName: `n${text}`, output: `o${text}` }],
      dropped: 0,
    },
    { type: "tool_requested", callId: `c${text}`, name: `n${text}`, arguments: text },
    { type: "approval_requested", callId: `c${text}`, name: `n${text}`, arguments: text },
    { type: "approval_resolved", callId: `c${text}`, approved: false, reason: `r${text}` },
    { type: "tool_finished", callId: `c${text}`, name: `n${text}`, output: text, isError: true },
    { type: "assistant_delta", text },
    { type: "assistant_message", text },
    { type: "assistant_message", text: `a${text}` },
  ] as RunEvent[];
  for (const event of events) printer.print(event);
  return printed;
}

/**
 * The first raw control character that inspect or resume's printer lets through from `text`
 * put in a session, or undefined when none does.
 */
export async function rawControlPrinted(
  root: string,
  text: string,
): Promise<string | undefined> {
  const codex = join(root, "rollout-2026-02-23T12-00-00-019c8a4c.jsonl");
  await Deno.writeTextFile(codex, codexRollout(text));
  const printed = [
    await inspectOutputs(codex),
    await inspectOutputs(await turnlogSession(join(root, "sessions"), text)),
    printedEvents(text),
  ].join("\n");
  const at = printed.search(RAW_CONTROL);
  return at === -1 ? undefined : JSON.stringify(printed.slice(Math.max(0, at - 60), at + 20));
}
