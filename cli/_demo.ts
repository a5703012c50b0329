/**
 * The no-argument demo of `deno task resume`: on the embedded model, a first turn, a second
 * turn in a child process that is really killed (SIGKILL) while its slow tool runs, the orphan
 * call that leaves in the file, and a resume that repairs it and completes; then the records
 * of each turn.
 *
 * @module
 */
import { readRecords } from "../src/history/mod.ts";
import { join } from "node:path";
import { readLines } from "../src/io/mod.ts";
import type { SessionRecord } from "../src/record/mod.ts";
import { loadSession } from "../src/resume/mod.ts";
import { findSession } from "../src/store/mod.ts";
import { ToolSet, Workspace } from "../src/tools/mod.ts";
import { connectModel } from "../src/runtime/mod.ts";
import { runKilledTurn } from "../testing/killed_turn.ts";
import { writeDemoWorkspace } from "../testing/demo_workspace.ts";
import type { ResumeArgs } from "./_args.ts";
import { EXIT, runCliTurn } from "./_turn.ts";
import { shortestUniquePrefix } from "../src/store/mod.ts";
import { EventPrinter, styles } from "./_render.ts";
import { colorEnabled } from "../src/text/mod.ts";

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

/** Runs the demo; returns the exit code. */
export async function runDemo(): Promise<number> {
  const colour = colorEnabled();
  const s = styles(colour);
  const out = (text = "") => console.log(text);
  const step = (n: number, text: string) => out(`\n${s.bold(s.blue(`[${n}]`))} ${s.bold(text)}`);

  const base = await Deno.makeTempDir({ prefix: "turnlog-demo-" });
  const sessionsDir = join(base, "sessions");
  const workspace = join(base, "workspace");
  await writeDemoWorkspace(workspace);

  out(s.bold("turnlog demo: a session that survives a crash in the middle of a tool call"));
  out(s.dim(`Everything runs on the embedded deterministic model (a local stand-in for the
OpenAI API, spoken to through npm:openai). Sessions: ${sessionsDir}
Workspace: ${workspace}`));

  await using connection = await connectModel({ model: "scripted" });
  const args = (message: string, session?: string): ResumeArgs => ({
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

  step(
    1,
    "Turn 1 starts a new session: the model lists the workspace with a tool call, and every record is appended as it happens.",
  );
  out(s.dim('$ ./denow task resume "list the files"'));
  const first = await runCliTurn(args("list the files"), { connection });
  if (!first.started || first.exitCode !== EXIT.ok) return first.exitCode || EXIT.failed;
  const sessionId = first.started.sessionId;
  const path = first.started.sessionPath;
  const prefix = await shortestUniquePrefix(sessionsDir, sessionId);

  step(
    2,
    "Turn 2 runs in a real child process that asks for a slow tool; the demo kills it with SIGKILL while the tool runs.",
  );
  const message2 = "run a slow task for 4 seconds";
  out(
    s.dim(
      `$ ./denow task resume --session ${prefix} --json "${message2}"   (child process)`,
    ),
  );
  const printer = new EventPrinter({ colour });
  const killed = await runKilledTurn({
    sessionsDir,
    sessionId,
    workspace,
    message: message2,
    onEvent: (event) => printer.print(event),
  });
  if (!killed.killed) {
    out(s.red("The child finished before it could be killed; the demo cannot show the repair."));
    return EXIT.failed;
  }
  out(
    s.red(
      `  ✗ child process killed (${killed.exitSignal ?? "SIGKILL"}) while slow_task was running`,
    ),
  );

  step(
    3,
    "The file now ends with an orphan call: a function_call with no output, exactly what the kill left (raw line):",
  );
  let orphanLine = "";
  for await (const line of readLines(path)) {
    if (killed.callId && line.text.includes(killed.callId)) orphanLine = line.text;
  }
  out(s.yellow(orphanLine));
  out(
    "Sent as is, the model API refuses this history (the demo just tried, without the repair):",
  );
  const replayed = (await loadSession(await findSession(sessionsDir, sessionId))).replayed;
  try {
    const round = connection.streamRound({
      wireApi: "responses",
      model: connection.model,
      history: replayed,
      tools: new ToolSet(await Workspace.open(workspace)).definitions,
    });
    for await (const _ of round) { /* the refusal comes before any part */ }
    out(s.red("  (unexpectedly accepted)"));
  } catch (error) {
    out(s.red(`  ${connection.describeError(error)}`));
  }

  step(
    4,
    'Turn 3 resumes with "continue": resume appends a synthesized output for the orphan call, and the model re-issues the call, which now completes.',
  );
  out(s.dim(`$ ./denow task resume --session ${prefix} "continue"`));
  const third = await runCliTurn(args("continue", sessionId), { connection });
  if (third.exitCode !== EXIT.ok) return third.exitCode;

  step(
    5,
    "The records of each turn: the file only ever grew; nothing was rewritten or duplicated.",
  );
  const turns = await recordsByTurn(path);
  const names = ["session start", "turn 1", "turn 2 (killed)", "turn 3 (resumed)"];
  let total = 0;
  for (const [i, records] of turns.entries()) {
    total += records.length;
    const label = (names[i] ?? `turn ${i}`).padEnd(17);
    out(
      `  ${label} ${String(records.length).padStart(2)} records  ${
        s.dim(records.map(recordLabel).join(", "))
      }`,
    );
  }
  out(`  ${"total".padEnd(17)} ${String(total).padStart(2)} records  ${s.dim(path)}`);
  out(
    `\nContinue it yourself: ./denow task resume --sessions-dir ${sessionsDir} --workspace ${workspace} --session ${prefix} "read notes.txt"`,
  );
  return EXIT.ok;
}
