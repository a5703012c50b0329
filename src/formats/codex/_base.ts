/**
 * Where a Codex fork's inherited history is: since 0.169 a fork made in paginated mode holds
 * only its own records, and its `session_meta` names the rest (`history_base`: the thread, the
 * ordinal and the byte offset its history ends before). Codex's resume rebuilds the thread
 * from that thread's rollout up to there (itself maybe a fork: followed the same way), then
 * the fork's own records; so does turnlog's reader.
 *
 * @module
 */
import { basename, dirname, join } from "../../_path.ts";
import { type Json, numberOf, objectOf, stringOf } from "../_line.ts";
import { dirEntries } from "../_head.ts";
import { findCodexSession, parseRolloutName } from "./_find.ts";

/** The history a rollout starts from: `history_base` of its `session_meta`. */
export interface CodexHistoryBase {
  /** The thread whose rollout holds the history. */
  threadId: string;
  /** The history is that rollout's records with an ordinal below this. */
  endOrdinalExclusive: number | null;
  /** ... and its lines before this byte. */
  endByteOffset: number | null;
}

/** A `session_meta` payload's `history_base`, or undefined when it names none (or no thread). */
export function historyBaseOf(meta: Json): CodexHistoryBase | undefined {
  const base = objectOf(meta.history_base);
  const threadId = base && stringOf(base.thread_id);
  if (base === undefined || threadId === undefined) return undefined;
  return {
    threadId,
    endOrdinalExclusive: numberOf(base.end_ordinal_exclusive) ?? null,
    endByteOffset: numberOf(base.end_byte_offset) ?? null,
  };
}

const DAY_PART = /^\d+$/;

/**
 * The sessions root a rollout is in: `<root>/YYYY/MM/DD/rollout-*.jsonl` gives `<root>`; a
 * rollout anywhere else, its own folder.
 */
export function codexRootOf(path: string): string {
  const day = dirname(path);
  const month = dirname(day);
  const year = dirname(month);
  const parts = [basename(day), basename(month), basename(year)];
  return parts.every((part) => DAY_PART.test(part)) ? dirname(year) : day;
}

/** The rollout of `threadId` lying in `dir` itself (a folder of rollouts with no day folders). */
async function flatRollout(dir: string, threadId: string): Promise<string | null> {
  const id = threadId.toLowerCase();
  for (const entry of await dirEntries(dir)) {
    const found = entry.isFile ? parseRolloutName(entry.name, dir) : undefined;
    if (found?.id.toLowerCase() === id) return found.path;
  }
  return null;
}

/**
 * The rollout of the base thread, found by id in the fork's sessions root, else in the fork's
 * own folder, else (for a root named `sessions`) in Codex's `archived_sessions` beside it;
 * null when the home has none. Names and folders only, as every finder.
 */
export async function findBaseRollout(forkPath: string, threadId: string): Promise<string | null> {
  const root = codexRootOf(forkPath);
  try {
    return (await findCodexSession(root, threadId)).path;
  } catch {
    // Not in the root's day folders: beside the fork, or archived.
  }
  const beside = await flatRollout(dirname(forkPath), threadId);
  if (beside !== null || basename(root) !== "sessions") return beside;
  return await flatRollout(join(dirname(root), "archived_sessions"), threadId);
}
