/**
 * Repair: makes a damaged session file resumable without losing a byte. Bad lines go to the
 * quarantine sidecar (flushed) before they leave the session file, the session file is
 * rewritten only through a temp file and an atomic rename, and orphan calls get the outputs
 * resume would synthesize, appended.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { normalizeHistory } from "../history/mod.ts";
import { readRange, writeAll } from "../io/mod.ts";
import {
  encodeRecords,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../record/mod.ts";
import { loadSession } from "../resume/mod.ts";
import { quarantineLines, SessionInUseError, SessionWriter } from "../store/mod.ts";
import { inspectSession } from "./_inspect.ts";
import { type MovedLine, planFileRepair, type RepairPlan } from "./_repair_plan.ts";
import type { InspectReport } from "./_schema.ts";

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
    // Repair holds the lock, so the file cannot shrink under it.
    const bytes = await readRange(file, m);
    // The sidecar gets the line without its newline, exactly as it was otherwise.
    const length = bytes.length > 0 && bytes[bytes.length - 1] === 10
      ? bytes.length - 1
      : bytes.length;
    lines.push({ line: m.line, kind: m.kind, bytes: bytes.subarray(0, length) });
  }
  return lines;
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
    await writeAll(target, await readRange(source, { start: at, end: Math.min(end, at + chunk) }));
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
