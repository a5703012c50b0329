/**
 * Repair: makes a damaged session file resumable without losing a byte. Bad lines go to the
 * quarantine sidecar (flushed) before they leave the session file, the session file is
 * rewritten only through a temp file and an atomic rename, and orphan calls get the outputs
 * resume would synthesize, appended.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { adapterOfFile, type SessionAdapter, type SessionValidation } from "../formats/mod.ts";
import { normalizeHistory } from "../history/mod.ts";
import { type InspectReport, inspectSession } from "../inspect/mod.ts";
import { writeAll } from "../io/mod.ts";
import { encodeRecords, responseItemRecord, type SessionRecord } from "../record/mod.ts";
import { loadSession } from "../resume/mod.ts";
import { quarantineThen, rewriteFile, SessionWriter } from "../store/mod.ts";
import { endsWithNewline, readKeptLines } from "./_bytes.ts";
import { repairForeignFile } from "./_foreign.ts";
import type { MovedLine, RepairPlan } from "./_plan.ts";
import { planTurnlogFileRepair } from "./_turnlog.ts";

/** What {@linkcode repairSession} did. */
export interface RepairResult {
  /** The plan as worked out under the session's lock (what was done). */
  plan: RepairPlan;
  /** The file after the repair. */
  after: InspectReport;
  /** Another tool's file: its format's validator on the file after the repair; else null. */
  validation: SessionValidation | null;
}

/** Options of {@linkcode repairSession}. */
export interface RepairOptions {
  /** The sessions root, for the continue command of the inspection afterwards. */
  root?: string | undefined;
  /**
   * The file's adapter, when the command that found the file knows it: the file is then not
   * detected again from its head. Absent: told from the head.
   */
  adapter?: SessionAdapter | undefined;
}

/**
 * Repairs the session file at `path`, holding its lock throughout (the same lock a run
 * holds, taken on the file the path names), and does exactly what the plan worked out under
 * the lock says:
 *
 * 1. Every bad line, and every output resume would drop, is copied to the sidecar (flushed)
 *    first; a line the sidecar already keeps (an interrupted repair copied it) is not copied
 *    twice.
 * 2. Then they leave the session file: the last line alone is cut off; otherwise the file is
 *    rewritten without them (glued records split back in their place) into a temp file in
 *    the same folder, fsynced, and renamed over the original in one step.
 * 3. Every call without an output gets the output `normalizeHistory` synthesizes for it,
 *    appended at the end: what resume would append, so a later resume synthesizes nothing.
 *
 * Every original byte stays in the session file or the sidecar, and a second repair finds
 * nothing to do. A file without its `session_meta`, or one whose `session_meta` names
 * another session, is left untouched.
 *
 * Another tool's file (a Codex rollout, a Claude Code transcript) is repaired in that tool's
 * own shapes (see {@linkcode repairForeignFile}) with the same guarantees, then checked by its
 * adapter's check.
 *
 * @throws {SessionInUseError} when a run holds the session
 * @throws {FileChangedError} when another tool's file changed during the repair
 */
export async function repairSession(
  path: string,
  options: RepairOptions = {},
): Promise<RepairResult> {
  const adapter = options.adapter ?? await adapterOfFile(path);
  if (!adapter.own) {
    const { plan, validation } = await repairForeignFile(path, adapter.name);
    return { plan, after: await inspectSession(path, options), validation };
  }
  const first = await planTurnlogFileRepair(await inspectSession(path, options));
  if (first.refused !== null) {
    return { plan: first, after: await inspectSession(path, options), validation: null };
  }
  let writer: Appender = await SessionWriter.open(path, { seal: false });
  let plan = first;
  try {
    const locked = await inspectSession(path, options);
    plan = await planTurnlogFileRepair(locked);
    if (plan.refused !== null) return { plan, after: locked, validation: null };
    if (plan.moved.length > 0) {
      const lines = await readKeptLines(path, plan.moved);
      await quarantineThen(path, lines, async () => {
        if (plan.method === "truncate") {
          await (writer as SessionWriter).cutAt(plan.moved[0]!.start);
        } else {
          // The new file is locked before it takes the old one's place, so no run slips in.
          const rewritten = await rewriteWithout(path, plan.moved);
          writer.close();
          writer = rewritten;
        }
      });
    }
    await appendSynthesized(writer, path, locked, plan);
  } finally {
    writer.close();
  }
  return { plan, after: await inspectSession(path, options), validation: null };
}

/** Appends the outputs resume would synthesize: one per orphan call of the plan, in order. */
async function appendSynthesized(
  writer: Appender,
  path: string,
  report: InspectReport,
  plan: RepairPlan,
): Promise<void> {
  if (plan.appended.length === 0) return;
  const { session } = report;
  const loaded = await loadSession({
    id: session.id ?? "",
    path,
    createdAt: session.created ?? "",
  });
  const { synthesized } = normalizeHistory(loaded.replayed);
  const planned = plan.appended.map((a) => a.callId).join(",");
  if (synthesized.map((item) => item.callId).join(",") !== planned) {
    throw new TurnlogError(
      "internal",
      `Repair of ${path}: the outputs to synthesize are not the planned ones`,
    );
  }
  await terminateLastLine(path);
  await writer.append(synthesized.map((item) => responseItemRecord(item)));
}

const encoder = new TextEncoder();

/**
 * Gives a last record without its newline one (every other last line without one is moved
 * out as a torn tail), so appended records start on lines of their own instead of being
 * glued to it.
 */
async function terminateLastLine(path: string): Promise<void> {
  using file = await Deno.open(path, { read: true, append: true });
  const { size } = await file.stat();
  if (!await endsWithNewline(file, size)) await writeAll(file, encoder.encode("\n"));
}

/** What repair appends through: the session's writer, or the rewritten file's handle. */
interface Appender {
  append(records: readonly SessionRecord[]): Promise<void>;
  close(): void;
}

/**
 * Replaces the file at `path` with a copy without the `moved` lines (glued records written
 * back in their place), and returns the new file, still locked, to append to.
 */
async function rewriteWithout(path: string, moved: readonly MovedLine[]): Promise<Appender> {
  const rewritten = await rewriteFile(
    path,
    moved.map((m) => ({
      start: m.start,
      end: m.end,
      text: m.split ? m.split.map((r) => `${r.text}\n`).join("") : "",
    })),
  );
  return {
    append: (records) => rewritten.append(encodeRecords(records)),
    close: () => rewritten.close(),
  };
}
