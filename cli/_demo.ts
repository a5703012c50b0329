/**
 * The no-argument demo of `./denow task resume`: on the embedded model, a first turn, a second
 * turn in a child process that is really killed (SIGKILL) while its slow tool runs, the orphan
 * call that leaves in the file, and a resume that repairs it and completes; then the records
 * of each turn. The session stays in the sessions root (its workspace beside it, in
 * `<root>/demo-workspace`), where the user can continue and inspect it.
 *
 * @module
 */
import { readRecords } from "../src/history/mod.ts";
import { isAbsolute, join, relative } from "node:path";
import { readLines } from "../src/io/mod.ts";
import type { SessionRecord } from "../src/record/mod.ts";
import { loadSession } from "../src/resume/mod.ts";
import { findSession, resolveSessionsRoot } from "../src/store/mod.ts";
import { ToolSet, Workspace } from "../src/tools/mod.ts";
import { connectModel, type ModelConnection } from "../src/runtime/mod.ts";
import { runKilledTurn } from "./_killed_turn.ts";
import { writeDemoWorkspace } from "./_demo_workspace.ts";
import type { ResumeArgs } from "./_args.ts";
import { EXIT, runCliTurn } from "./_turn.ts";
import { shortestUniquePrefix } from "../src/store/mod.ts";
import { EventPrinter, styles } from "./_render.ts";
import { CHECKOUT_TASK, TASK } from "./_commands.ts";
import { colorFor, stdout } from "./_output.ts";

/** The records of a session file grouped by turn (the records before the first turn_context go first). */
async function recordsByTurn(path: string): Promise<SessionRecord[][]> {
  const turns: SessionRecord[][] = [[]];
  for await (const entry of readRecords(path)) {
    if (!entry.record) continue;
    if (entry.record.type === "turn_context") turns.push([]);
    turns.at(-1)!.push(entry.record);
  }
  return turns;
}

/** A short name for a record: its type, and the item kind of a response item. */
function recordLabel(record: SessionRecord): string {
  if (record.type !== "response_item") return record.type;
  const item = record.payload;
  if (item.type === "message") return `${item.role} message`;
  if (item.type === "function_call_output") {
    return item.synthesized ? "function_call_output (synthesized)" : "function_call_output";
  }
  return item.type;
}

/** What the demo's steps share. */
interface Demo {
  out: (text?: string) => void;
  s: ReturnType<typeof styles>;
  colour: boolean;
  root: string;
  workspace: string;
  connection: ModelConnection;
  args: (message: string, session?: string) => ResumeArgs;
}

/** A path as the user can type it from here: relative when under the current folder. */
function shown(path: string): string {
  const rel = relative(Deno.cwd(), path);
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

/** Step 2: a real child process asks for a slow tool and is killed with SIGKILL while it runs. */
async function killMidTool(demo: Demo, sessionId: string, prefix: string) {
  const message = "run a slow task for 4 seconds";
  demo.out(
    demo.s.dim(`$ ${TASK} resume --session ${prefix} --json "${message}"   (child process)`),
  );
  const printer = new EventPrinter({ colour: demo.colour });
  const killed = await runKilledTurn({
    sessionsDir: demo.root,
    sessionId,
    workspace: demo.workspace,
    message,
    onEvent: (event) => printer.print(event),
  });
  if (killed.killed) {
    demo.out(
      demo.s.red(
        `  ✗ child process killed (${killed.exitSignal ?? "SIGKILL"}) while slow_task was running`,
      ),
    );
  } else {
    demo.out(
      demo.s.red("The child finished before it could be killed; the demo cannot show the repair."),
    );
  }
  return killed;
}

/** Step 3: the orphan call's raw line, and the model API refusing the history as it is. */
async function showOrphan(demo: Demo, path: string, sessionId: string, callId: string | undefined) {
  let orphanLine = "";
  for await (const line of readLines(path)) {
    if (callId && line.text.includes(callId)) orphanLine = line.text;
  }
  demo.out(demo.s.yellow(orphanLine));
  demo.out(
    "Sent as is, the model API refuses this history (the demo just tried, without the repair):",
  );
  const replayed = (await loadSession(await findSession(demo.root, sessionId))).replayed;
  try {
    const round = demo.connection.streamRound({
      wireApi: "responses",
      model: demo.connection.model,
      history: replayed,
      tools: new ToolSet(await Workspace.open(demo.workspace)).definitions,
    });
    for await (const _ of round) { /* the refusal comes before any part */ }
    demo.out(demo.s.red("  (unexpectedly accepted)"));
  } catch (error) {
    demo.out(demo.s.red(`  ${demo.connection.describeError(error)}`));
  }
}

/** Step 5: the records of each turn. */
async function showTurns(demo: Demo, path: string): Promise<void> {
  const turns = await recordsByTurn(path);
  const names = ["session start", "turn 1", "turn 2 (killed)", "turn 3 (resumed)"];
  let total = 0;
  for (const [i, records] of turns.entries()) {
    total += records.length;
    const label = (names[i] ?? `turn ${i}`).padEnd(17);
    const count = String(records.length).padStart(2);
    demo.out(`  ${label} ${count} records  ${demo.s.dim(records.map(recordLabel).join(", "))}`);
  }
  demo.out(
    `  ${"total".padEnd(17)} ${String(total).padStart(2)} records  ${demo.s.dim(shown(path))}`,
  );
}

/** The closing lines: where the session and its workspace are kept, and what to try next. */
function whatNext(demo: Demo, path: string, prefix: string): void {
  const dir = demo.root === resolveSessionsRoot() ? "" : `--sessions-dir ${shown(demo.root)} `;
  demo.out(`\n${demo.s.bold("Kept")}     the session ${shown(path)}
         its workspace ${shown(demo.workspace)} (a resumed session works there again)
${demo.s.bold("Next")}     ${TASK} resume ${dir}--session ${prefix} "read notes.txt"
         ${TASK} inspect ${dir}${prefix}${
    TASK === CHECKOUT_TASK
      ? "\n         ./denow task notebooks 02   (this story step by step, in notebooks/02_interrupted_tool_call.ipynb)"
      : ""
  }`);
}

/** Runs the demo; returns the exit code. */
export async function runDemo(): Promise<number> {
  const colour = colorFor(stdout);
  const s = styles(colour);
  const out = (text = "") => console.log(text);
  const step = (n: number, text: string) => out(`\n${s.bold(s.blue(`[${n}]`))} ${s.bold(text)}`);
  const root = resolveSessionsRoot();
  const workspace = join(root, "demo-workspace");
  await writeDemoWorkspace(workspace);
  await using connection = await connectModel({ model: "scripted" });
  const demo: Demo = {
    out,
    s,
    colour,
    root,
    workspace,
    connection,
    args: demoArgs(root, workspace),
  };

  out(s.bold("turnlog demo: a session that survives a crash in the middle of a tool call"));
  out(s.dim(`Everything runs on the embedded deterministic model (a local stand-in for the
OpenAI API, spoken to through npm:openai). Sessions: ${shown(root)}  Workspace: ${
    shown(workspace)
  }`));
  step(
    1,
    "Turn 1 starts a new session: the model lists the workspace with a tool call, and every record is appended as it happens.",
  );
  out(s.dim(`$ ${TASK} resume "list the files"`));
  const first = await runCliTurn(demo.args("list the files"), { connection });
  if (!first.started || first.exitCode !== EXIT.ok) return first.exitCode || EXIT.failed;
  const { sessionId, sessionPath: path } = first.started;
  const prefix = await shortestUniquePrefix(root, sessionId);

  step(
    2,
    "Turn 2 runs in a real child process that asks for a slow tool; the demo kills it with SIGKILL while the tool runs.",
  );
  const killed = await killMidTool(demo, sessionId, prefix);
  if (!killed.killed) return EXIT.failed;
  step(
    3,
    "The file now ends with an orphan call: a function_call with no output, exactly what the kill left (raw line):",
  );
  await showOrphan(demo, path, sessionId, killed.callId);
  step(
    4,
    'Turn 3 resumes with "continue": resume appends a synthesized output for the orphan call, and the model re-issues the call, which now completes.',
  );
  out(s.dim(`$ ${TASK} resume --session ${prefix} "continue"`));
  const third = await runCliTurn(demo.args("continue", sessionId), { connection });
  if (third.exitCode !== EXIT.ok) return third.exitCode;
  step(
    5,
    "The records of each turn: the file only ever grew; nothing was rewritten or duplicated.",
  );
  await showTurns(demo, path);
  whatNext(demo, path, prefix);
  return EXIT.ok;
}

/** The arguments of the demo's CLI turns. */
function demoArgs(sessionsDir: string, workspace: string) {
  return (message: string, session?: string): ResumeArgs => ({
    help: false,
    message,
    session,
    last: false,
    fork: undefined,
    atTurn: undefined,
    sessionsDir,
    model: "scripted",
    wireApi: undefined,
    policy: undefined,
    workspace,
    json: false,
    maxRounds: undefined,
    compactThreshold: undefined,
  });
}
