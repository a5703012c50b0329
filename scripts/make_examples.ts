/**
 * Regenerates the example sessions shipped in the default sessions root (`sessions/`, dated
 * 2026-01-15) with the real runtime on the embedded model: a fresh session, a resumed one, one
 * interrupted by a real SIGKILL and then resumed, an approval denied then granted, one on the
 * Chat Completions wire API, a cancelled turn and a compacted one. It replaces only the
 * sessions listed in `sessions/examples.json` (the ones it made before), so the user's own
 * sessions are left alone. A fixed clock and seeded ids make every run give the same bytes.
 *
 * Usage: ./denow task examples [--out <dir>]
 *
 * @module
 */
import { collectRecords } from "../src/history/mod.ts";
import { join, relative } from "node:path";
import { parseArgs } from "node:util";
import { tmpdir } from "node:os";
import { FIXED_CLOCK_ENV, setClock } from "../src/record/mod.ts";
import { approvingApprover, terminalApprover } from "../src/runtime/mod.ts";
import type { RunEvent } from "../src/runtime/mod.ts";
import { runTurn, type RunTurnOptions } from "../src/runtime/mod.ts";
import { connectModel, createCompactor } from "../src/runtime/mod.ts";
import { runKilledTurn } from "../cli/_killed_turn.ts";
import { writeDemoWorkspace } from "../cli/_demo_workspace.ts";

const { values } = parseArgs({ args: Deno.args, options: { out: { type: "string" } } });
const root = values.out ?? join(Deno.cwd(), "sessions");
const indexPath = join(root, "examples.json");
/**
 * Example `n` happens at 2026-01-15 (8+n):00 UTC on a fixed clock seeded with `n`: its ids and
 * times, and so its bytes, are the same each run, and the hours apart keep short ids short.
 */
function atHour(n: number): void {
  Deno.env.set(FIXED_CLOCK_ENV, `${new Date(Date.UTC(2026, 0, 15, 8 + n)).toISOString()},${n}`);
  setClock(undefined); // read the variable again
}

interface IndexEntry {
  id: string;
  /** The file, relative to the examples root. */
  file: string;
  title: string;
  turns: number;
  records: number;
}

// Remove what this script made last time, and nothing else.
try {
  const previous = JSON.parse(await Deno.readTextFile(indexPath)) as { sessions: IndexEntry[] };
  for (const entry of previous.sessions) {
    await Deno.remove(join(root, entry.file)).catch(() => {});
    await Deno.remove(join(root, `${entry.file}.quarantine`)).catch(() => {});
  }
} catch (error) {
  if (!(error instanceof Deno.errors.NotFound)) throw error;
}

// A fixed path: it is recorded in each session_meta.
const workspace = join(tmpdir(), "turnlog-examples-workspace");
await Deno.remove(workspace, { recursive: true }).catch(() => {});
await writeDemoWorkspace(workspace);

await using connection = await connectModel({ model: "scripted" });
const sessions: IndexEntry[] = [];

async function turn(message: string, options: Partial<RunTurnOptions> = {}): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (
    const event of runTurn({
      message,
      connection,
      sessionsDir: root,
      workspace,
      approver: terminalApprover({ isTerminal: () => false }),
      ...options,
    })
  ) {
    events.push(event);
  }
  const last = events.at(-1)!;
  if (last.type === "run_failed") {
    throw new Error(`Example turn "${message}" failed: ${last.error}`);
  }
  return events;
}

function started(events: RunEvent[]) {
  const event = events.find((e) => e.type === "run_started");
  if (event?.type !== "run_started") throw new Error("No run_started event");
  return event;
}

async function record(title: string, events: RunEvent[], turns: number): Promise<void> {
  const { sessionId, sessionPath } = started(events);
  sessions.push({
    id: sessionId,
    file: relative(root, sessionPath).split("\\").join("/"),
    title,
    turns,
    records: (await collectRecords(sessionPath)).records.length,
  });
  console.log(`${title}: ${sessionId}`);
}

// 1. A fresh session: one turn with a tool call.
atHour(1);
await record("fresh: one turn, list_dir", await turn("list the files"), 1);

// 2. Resumed twice: each turn's request carries the whole history.
atHour(2);
{
  const first = await turn("read notes.txt");
  const sessionId = started(first).sessionId;
  await turn('search for "TODO"', { sessionId });
  await record(
    "resumed: read, search, recall",
    await turn("what did I ask so far?", { sessionId }),
    3,
  );
}

// 3. Interrupted by a real SIGKILL mid-tool, then resumed: one synthesized output.
atHour(3);
{
  const first = await turn("list the files");
  const { sessionId } = started(first);
  const killed = await runKilledTurn({
    sessionsDir: root,
    sessionId,
    workspace,
    message: "run a slow task for 2 seconds",
  });
  if (!killed.killed) throw new Error("The child turn was not killed mid-tool");
  await record(
    "interrupted then resumed: orphan call repaired",
    await turn("continue", { sessionId }),
    3,
  );
}

// 4. A change denied without a terminal, then allowed by an explicit policy.
atHour(4);
{
  const first = await turn("write summary.md with 'draft'");
  const { sessionId } = started(first);
  await record(
    "approval: denied, then run under --policy auto",
    await turn("write summary.md with 'draft'", { sessionId, policy: { approval: "auto" } }),
    2,
  );
  await Deno.remove(join(workspace, "summary.md"));
}

// 5. The Chat Completions wire API (recorded, and kept on resume).
atHour(5);
{
  const first = await turn("read notes.txt", { wireApi: "chat" });
  const { sessionId } = started(first);
  await record(
    "chat wire API: read, then list",
    await turn("list the files in src", { sessionId }),
    2,
  );
}

// 6. A turn cancelled through its AbortSignal while a tool ran.
atHour(6);
{
  const controller = new AbortController();
  const events: RunEvent[] = [];
  for await (
    const event of runTurn({
      message: "run a slow task for 30 seconds",
      connection,
      sessionsDir: root,
      workspace,
      approver: approvingApprover(),
      signal: controller.signal,
    })
  ) {
    events.push(event);
    if (event.type === "tool_requested") setTimeout(() => controller.abort(), 100);
  }
  await record("cancelled: Ctrl-C while slow_task ran", events, 1);
}

// 7. A long conversation crosses a low compaction threshold: a checkpoint record, and the
//    turns after it replay from there.
atHour(7);
{
  const compactor = createCompactor({ threshold: 850 });
  const first = await turn("read notes.txt", { compactor });
  const { sessionId } = started(first);
  await turn("list the files", { sessionId, compactor });
  await turn("read README.md", { sessionId, compactor });
  await record(
    "compacted: a checkpoint mid-conversation, then resumed from it",
    await turn("what did I ask so far?", { sessionId, compactor }),
    4,
  );
}

await Deno.writeTextFile(
  indexPath,
  JSON.stringify(
    {
      note: "Made by scripts/make_examples.ts (./denow task examples) on the embedded model; " +
        "rerun it to regenerate. Only these files are replaced.",
      sessions,
    },
    null,
    2,
  ) + "\n",
);
await Deno.remove(workspace, { recursive: true });
console.log(`${sessions.length} example sessions in ${root}`);
