/**
 * Repair: makes a damaged session file resumable without losing a byte. Bad lines go to the
 * quarantine sidecar (flushed) before they leave the session file, the session file is
 * rewritten only through a temp file and an atomic rename, and orphan calls get the outputs
 * resume would synthesize, appended.
 *
 * @module
 */
import { writeAll } from "../io/mod.ts";
import { basename, dirname, join } from "node:path";
import { inspectSession } from "./_inspect.ts";
import type { InspectProblemKind, InspectReport } from "./_schema.ts";
import { normalizeHistory } from "../history/mod.ts";
import { encodeRecords, parseRecordLine } from "../record/mod.ts";
import { quarantineLines, quarantinePath } from "../store/mod.ts";
import { type ResponseItem, responseItemRecord, type SessionRecord } from "../record/mod.ts";
import { loadSession } from "../resume/mod.ts";
import { SessionInUseError, SessionWriter } from "../store/mod.ts";

/** Problem kinds whose line repair moves to the sidecar. */
const MOVED_KINDS: ReadonlySet<InspectProblemKind> = new Set<InspectProblemKind>([
  "torn_tail",
  "malformed_json",
  "not_an_object",
  "unknown_type",
  "invalid_record",
  "orphan_output",
  "duplicate_output",
]);

/** A line repair moves from the session file to the sidecar. */
export interface MovedLine {
  line: number;
  kind: InspectProblemKind;
  /** Byte range in the session file, terminator included. */
  start: number;
  end: number;
  message: string;
  /**
   * The records a line of several records glued together splits into, each written back on
   * a line of its own in the line's place; null for a line that only moves.
   */
  split: { type: string; text: string }[] | null;
}

/** An output repair appends for a call without one. */
export interface AppendedOutput {
  callId: string;
  toolName: string;
  /** The call's line and turn. */
  line: number;
  turn: number | null;
}

/** What a repair does to one file. */
export interface RepairPlan {
  path: string;
  sidecar: string;
  /** Lines moved to the sidecar, in file order. */
  moved: MovedLine[];
  /**
   * How the lines leave the session file: `truncate` when only a torn last line goes (it is
   * cut off), `rewrite` when a line in the middle goes (temp file, fsync, atomic rename).
   */
  method: "none" | "truncate" | "rewrite";
  /** Synthesized outputs appended at the end, exactly as resume would write them. */
  appended: AppendedOutput[];
  /** Problems repair leaves as they are, and why. */
  leftAsIs: string[];
  /** Why repair refuses to touch the file at all, or null. */
  refused: string | null;
}

/** True when a plan changes nothing. */
export function isEmptyPlan(plan: RepairPlan): boolean {
  return plan.moved.length === 0 && plan.appended.length === 0;
}

/**
 * Works out what a repair would do from an inspection. Pure.
 *
 * @example
 * ```ts ignore
 * const plan = planRepair(await inspectSession(path));
 * ```
 */
export function planRepair(report: InspectReport): RepairPlan {
  const path = report.session.path;
  const plan: RepairPlan = {
    path,
    sidecar: quarantinePath(path),
    moved: [],
    method: "none",
    appended: [],
    leftAsIs: [],
    refused: null,
  };
  for (const problem of report.problems) {
    if (MOVED_KINDS.has(problem.kind) && problem.start !== null && problem.end !== null) {
      plan.moved.push({
        line: problem.line,
        kind: problem.kind,
        start: problem.start,
        end: problem.end,
        message: problem.message,
        split: null,
      });
    } else if (problem.kind === "missing_session_meta") {
      plan.refused = `${problem.message}; without it the session's id, model and policy are ` +
        "unknown, so repair leaves the file alone (fix the first line by hand)";
    } else {
      const why = problem.kind === "duplicate_session_meta"
        ? "resume ignores it"
        : problem.kind === "record_before_first_turn"
        ? "resume reads it like any other record"
        : "it is not one line of its own";
      plan.leftAsIs.push(`${problem.message} (left as is: ${why})`);
    }
  }
  if (plan.moved.length > 0) {
    plan.method = plan.moved.every((m) => m.kind === "torn_tail") ? "truncate" : "rewrite";
  }
  plan.appended = report.orphanCalls.map((c) => ({
    callId: c.callId,
    toolName: c.name,
    line: c.line,
    turn: c.turn,
  }));
  return plan;
}

/**
 * Splits a line of several complete JSON objects glued together (a writer that lost a
 * newline) into their texts, when every one is a valid record; otherwise null.
 *
 * @example
 * ```ts
 * import { splitGluedRecords } from "./_repair.ts";
 * console.assert(splitGluedRecords('{"a":1}{"b":2}') === null); // not records
 * ```
 */
export function splitGluedRecords(text: string): { type: string; text: string }[] | null {
  const pieces: string[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (escaped) escaped = false;
      else if (c === "\\") escaped = true;
      else if (c === '"') inString = false;
    } else if (c === '"') {
      if (depth === 0) return null;
      inString = true;
    } else if (c === "{" || c === "[") {
      if (depth === 0) {
        if (c === "[") return null;
        start = i;
      }
      depth++;
    } else if (c === "}" || c === "]") {
      if (--depth < 0) return null;
      if (depth === 0) pieces.push(text.slice(start, i + 1));
    } else if (depth === 0 && !/\s/.test(c)) {
      return null;
    }
  }
  if (depth !== 0 || inString || pieces.length < 2) return null;
  const records = [];
  for (const piece of pieces) {
    const parsed = parseRecordLine("", {
      line: 1,
      text: piece,
      start: 0,
      end: 0,
      terminated: true,
    });
    if (!parsed.record) return null;
    records.push({ type: parsed.record.type, text: piece });
  }
  return records;
}

/**
 * {@linkcode planRepair}, then a look at the bad lines themselves: a line of records glued
 * together is split back into them (it still goes to the sidecar as it was). When such a
 * line gives back the `session_meta` record, the file is no longer refused.
 */
export async function planFileRepair(report: InspectReport): Promise<RepairPlan> {
  const plan = planRepair(report);
  const glued = plan.moved.filter((m) => m.kind === "malformed_json");
  if (glued.length === 0) return plan;
  const decoder = new TextDecoder();
  using file = await Deno.open(plan.path, { read: true });
  for (const m of glued) {
    m.split = splitGluedRecords(decoder.decode(await readRange(file, m.start, m.end)).trimEnd());
  }
  const missing = report.problems.find((p) => p.kind === "missing_session_meta");
  const firstSplit = plan.moved.find((m) => m.split !== null);
  if (
    missing && firstSplit && firstSplit.line <= missing.line &&
    firstSplit.split![0]!.type === "session_meta" &&
    plan.moved.filter((m) => m.line < firstSplit.line).every((m) => m.split === null)
  ) {
    plan.refused = null;
  }
  const stray = report.problems.find((p) => p.kind === "record_before_first_turn");
  const turnBack = plan.moved.find((m) => m.split?.some((r) => r.type === "turn_context"));
  if (stray && turnBack && turnBack.line < stray.line) {
    // The turn_context the stray records missed is on the glued line: splitting fixes them.
    plan.leftAsIs = plan.leftAsIs.filter((note) => !note.startsWith(stray.message));
  }
  if (plan.moved.length > 0) plan.method = "rewrite";
  return plan;
}

/** What {@linkcode repairSession} did. */
export interface RepairResult {
  /** The plan as worked out under the session's lock (what was done). */
  plan: RepairPlan;
  /** The file after the repair. */
  after: InspectReport;
}

/** Options of {@linkcode repairSession}. */
export interface RepairOptions {
  /** The sessions root, for the continue command of the inspection afterwards. */
  root?: string | undefined;
}

/**
 * Repairs the session file at `path`, holding its lock throughout:
 *
 * 1. Taking the lock seals a torn last line (the writer copies it to the sidecar, flushed,
 *    then cuts it off).
 * 2. Every other bad line, and every output resume would drop, is copied to the sidecar
 *    (flushed) first; then the session is rewritten without them into a temp file in the
 *    same folder, fsynced, and renamed over the original in one step.
 * 3. Every call without an output gets the output {@linkcode normalizeHistory} synthesizes
 *    for it, appended at the end: what resume would append, so a later resume synthesizes
 *    nothing.
 *
 * Every original byte stays in the session file or the sidecar, and a second repair finds
 * nothing to do. A file without a `session_meta` record is left untouched.
 *
 * @throws {SessionInUseError} when a run holds the session
 */
export async function repairSession(
  path: string,
  options: RepairOptions = {},
): Promise<RepairResult> {
  const first = await inspectSession(path, options);
  const before = await planFileRepair(first);
  if (before.refused !== null) return { plan: before, after: first };
  let writer: Appender = await SessionWriter.open(path);
  const plan: RepairPlan = { ...before, moved: [], appended: [] };
  try {
    // Under the lock, from the file as it is now (the seal may have cut a torn tail off).
    const locked = await planFileRepair(await inspectSession(path, options));
    plan.moved = [...before.moved.filter((m) => m.kind === "torn_tail"), ...locked.moved];
    plan.method = locked.method === "rewrite"
      ? "rewrite"
      : plan.moved.length > 0
      ? "truncate"
      : "none";
    if (locked.moved.length > 0) {
      await quarantineLines(path, await readMovedLines(path, locked.moved));
      // The new file is locked before it takes the old one's place, so no run slips in.
      const rewritten = await rewriteWithout(path, locked.moved);
      writer.close();
      writer = rewritten;
    }
    if (locked.refused !== null) {
      plan.refused = locked.refused;
      return { plan, after: await inspectSession(path, options) };
    }
    const loaded = await loadSession({
      id: first.session.id ?? "",
      path,
      createdAt: first.session.created ?? "",
    });
    const { history, synthesized } = normalizeHistory(loaded.replayed);
    const made = new Set<ResponseItem>(synthesized);
    for (let i = 1; i < history.length; i++) {
      const call = history[i - 1]!;
      if (!made.has(history[i]!) || call.type !== "function_call") continue;
      const known = locked.appended.find((a) => a.callId === call.callId);
      plan.appended.push({
        callId: call.callId,
        toolName: call.name,
        line: known?.line ?? 0,
        turn: known?.turn ?? null,
      });
    }
    await writer.append(synthesized.map((item) => responseItemRecord(item)));
  } finally {
    writer.close();
  }
  return { plan, after: await inspectSession(path, options) };
}

async function readMovedLines(
  path: string,
  moved: readonly MovedLine[],
): Promise<{ line: number; kind: string; bytes: Uint8Array }[]> {
  using file = await Deno.open(path, { read: true });
  const lines = [];
  for (const m of moved) {
    const bytes = await readRange(file, m.start, m.end);
    // The sidecar gets the line without its newline, exactly as it was otherwise.
    const length = bytes.length > 0 && bytes[bytes.length - 1] === 10
      ? bytes.length - 1
      : bytes.length;
    lines.push({ line: m.line, kind: m.kind, bytes: bytes.subarray(0, length) });
  }
  return lines;
}

async function readRange(file: Deno.FsFile, start: number, end: number): Promise<Uint8Array> {
  // Repair holds the lock, so the file cannot shrink under it; a short read is a bug.
  const bytes = new Uint8Array(end - start);
  await file.seek(start, Deno.SeekMode.Start);
  let at = 0;
  while (at < bytes.length) {
    const n = await file.read(bytes.subarray(at));
    if (n === null) throw new Error(`The session file ended before byte ${end}`);
    at += n;
  }
  return bytes;
}

const encoder = new TextEncoder();

/** What repair appends through: the session's writer, or the rewritten file's handle. */
interface Appender {
  append(records: readonly SessionRecord[]): Promise<void>;
  close(): void;
}

/**
 * Replaces the file at `path` with a copy that lacks the `moved` byte ranges: written to a
 * temp file next to it, flushed, locked, then renamed over it, so a crash leaves either file
 * whole. Returns the new file, still locked, to append to.
 */
async function rewriteWithout(path: string, moved: readonly MovedLine[]): Promise<Appender> {
  const temp = join(dirname(path), `.${basename(path)}.repair-${crypto.randomUUID()}.tmp`);
  const ranges = [...moved].sort((a, b) => a.start - b.start);
  const target = await Deno.open(temp, { write: true, append: true, createNew: true });
  try {
    if (!(await target.tryLock(true))) throw new SessionInUseError(temp);
    using source = await Deno.open(path, { read: true });
    const { size } = await source.stat();
    let at = 0;
    for (const range of [...ranges, { start: size, end: size, split: null }]) {
      await copyRange(source, target, at, range.start);
      if (range.split) {
        await writeAll(target, encoder.encode(range.split.map((r) => `${r.text}\n`).join("")));
      }
      at = range.end;
    }
    await target.syncData();
    await Deno.rename(temp, path);
  } catch (error) {
    target.close();
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
  return {
    append: async (records) => {
      await writeAll(target, encodeRecords(records));
      await target.syncData();
    },
    close: () => target.close(),
  };
}

async function copyRange(
  source: Deno.FsFile,
  target: Deno.FsFile,
  start: number,
  end: number,
): Promise<void> {
  const chunk = 1 << 20;
  for (let at = start; at < end; at += chunk) {
    await writeAll(target, await readRange(source, at, Math.min(end, at + chunk)));
  }
}

/** Flushes a directory entry change (the rename) where the platform allows it. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    using handle = await Deno.open(dir, { read: true });
    await handle.syncData();
  } catch {
    // Not every platform lets a directory be opened or synced; the rename itself is atomic.
  }
}
