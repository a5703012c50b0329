/**
 * Codex rollouts where Codex keeps them, `<root>/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`:
 * walked newest first and found by id or unique prefix from folder and file names alone.
 *
 * @module
 */
import { join } from "../../_path.ts";
import { checkSessionId, idTime, prefixTimeRange } from "../../record/ids.ts";
import {
  beyondHead,
  type ForeignListing,
  type FoundSession,
  type ListedForeignSession,
  type ListOptions,
  onlyMatch,
  type PreviewOptions,
  unpreviewed,
  withStat,
} from "../_find.ts";
import { dirEntries, previewLine, scanHead } from "../_head.ts";
import { isInjectedContext } from "./_items.ts";
import { obj, str } from "../_line.ts";
import { compareLikeLocale } from "../../text/mod.ts";

/** A rollout's name: plain, or compressed with zstd (`.jsonl.zst`, Codex's rollout compression). */
const ROLLOUT = /^rollout-(\d{4})-(\d{2})-(\d{2})T(\d{2})-(\d{2})-(\d{2})-(.+?)\.jsonl(?:\.zst)?$/;

/** A day folder's local date may hold sessions of the UTC day before or after. */
const DAY = 24 * 60 * 60 * 1000;

async function numbered(dir: string, digits: number): Promise<string[]> {
  const pattern = new RegExp(`^\\d{${digits}}$`);
  return (await dirEntries(dir)).filter((e) => e.isDirectory && pattern.test(e.name))
    .map((e) => e.name).sort().reverse();
}

/** The day folders of a Codex root, newest first, limited to those that can hold `range`. */
async function* dayFolders(
  root: string,
  range?: { from: number; to: number },
): AsyncGenerator<string> {
  const overlaps = (from: number, to: number) =>
    !range || (from <= range.to + DAY && to >= range.from - DAY);
  for (const year of await numbered(root, 4)) {
    const y = Number(year);
    if (!overlaps(Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1) - 1)) continue;
    for (const month of await numbered(join(root, year), 2)) {
      const m = Number(month) - 1;
      if (!overlaps(Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1) - 1)) continue;
      for (const day of await numbered(join(root, year, month), 2)) {
        const d = Number(day);
        if (overlaps(Date.UTC(y, m, d), Date.UTC(y, m, d + 1) - 1)) {
          yield join(root, year, month, day);
        }
      }
    }
  }
}

/** Parses a rollout's file name, or returns undefined for any other file. */
export function parseRolloutName(name: string, dir: string): FoundSession | undefined {
  const match = ROLLOUT.exec(name);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, id] = match;
  // The name's time is local; a UUIDv7 id carries the exact instant.
  const created = idTime(id!.toLowerCase())?.toISOString() ??
    new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}`).toISOString();
  return {
    format: "codex",
    id: id!,
    path: join(dir, name),
    created,
    modified: null,
    sizeBytes: 0,
    project: null,
  };
}

async function rolloutsIn(dir: string): Promise<FoundSession[]> {
  const found: FoundSession[] = [];
  for (const entry of await dirEntries(dir)) {
    if (!entry.isFile) continue;
    const session = parseRolloutName(entry.name, dir);
    if (session) found.push(session);
  }
  // localeCompare's order without its collator (its first call costs a search 10 to 50 ms).
  return found.sort((a, b) => compareLikeLocale(b.path, a.path));
}

/** Every rollout of a Codex sessions root, newest first, from names alone. */
export async function* walkCodexSessions(root: string): AsyncGenerator<FoundSession> {
  for await (const dir of dayFolders(root)) yield* await rolloutsIn(dir);
}

/** The rollouts of `folders` whose id starts with `prefix`: the one it names whole, or all. */
async function matching(folders: AsyncIterable<string>, prefix: string): Promise<FoundSession[]> {
  const matches: FoundSession[] = [];
  for await (const dir of folders) {
    for (const session of await rolloutsIn(dir)) {
      const id = session.id.toLowerCase();
      if (id === prefix) return [session];
      if (id.startsWith(prefix)) matches.push(session);
    }
  }
  return matches;
}

/**
 * Finds a rollout by full id or unique prefix, from names alone: a UUIDv7 prefix names the
 * few day folders that can hold it, and only when none does are the others looked at (a
 * rollout moved or copied into another day's folder, which the listing shows too).
 *
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 * @throws {SessionNotFoundError} when no rollout matches
 * @throws {AmbiguousSessionError} when several match
 */
export async function findCodexSession(root: string, idOrPrefix: string): Promise<FoundSession> {
  const prefix = checkSessionId(idOrPrefix);
  const range = prefixTimeRange(prefix);
  let matches = await matching(dayFolders(root, range), prefix);
  if (matches.length === 0 && range !== undefined) {
    matches = await matching(dayFolders(root), prefix);
  }
  return await withStat(onlyMatch(idOrPrefix, root, matches));
}

/**
 * What a rollout's head tells for a listing: the first real prompt, cwd (its project), branch,
 * model, the first record's time; and its tail (read from the end, bounded) the last record's.
 */
export async function previewCodexSession(
  session: FoundSession,
  options: PreviewOptions = {},
): Promise<ListedForeignSession> {
  let firstAt: string | null | undefined;
  let preview: string | null = null;
  let fallback: string | null = null;
  let cwd: string | null = null;
  let gitBranch: string | null = null;
  let model: string | null = null;
  await scanHead(session.path, (value) => {
    const payload = obj(value, "payload") ?? {};
    const type = str(value, "type");
    firstAt ??= str(value, "timestamp") ?? null;
    if (type === "session_meta") {
      cwd ??= str(payload, "cwd") ?? null;
      gitBranch ??= str(obj(payload, "git") ?? {}, "branch") ?? null;
    } else if (type === "turn_context") {
      model ??= str(payload, "model") ?? null;
    } else if (type === "event_msg" && payload.type === "user_message") {
      preview = str(payload, "message") ?? null;
    } else if (type === "response_item" && payload.type === "message" && payload.role === "user") {
      const content = Array.isArray(payload.content) ? payload.content : [];
      const text = content.map((part) => (typeof part?.text === "string" ? part.text : "")).join(
        "\n",
      );
      // Injected context (environment, instructions) is not the user's prompt.
      if (!isInjectedContext(text)) fallback ??= text;
    }
    return preview !== null && model !== null;
  });
  const prompt = preview ?? fallback;
  const { found, lastAt } = await beyondHead(session, options);
  return {
    ...found,
    preview: prompt === null ? null : previewLine(prompt),
    title: null,
    cwd,
    gitBranch,
    model,
    project: cwd,
    firstAt: firstAt ?? null,
    lastAt,
  };
}

/**
 * Codex's base instructions, from the rollout's `session_meta` (its first record):
 * `base_instructions.text` (0.1xx), else `instructions` (older); null when it has none. Codex
 * sends them first in every request. Reads the head only.
 */
export async function readCodexInstructions(path: string): Promise<string | null> {
  let found: string | null = null;
  await scanHead(path, (value) => {
    if (str(value, "type") !== "session_meta") return false;
    const payload = obj(value, "payload") ?? {};
    const base = obj(payload, "base_instructions");
    const text = (base && str(base, "text")) ?? str(payload, "base_instructions") ??
      str(payload, "instructions");
    if (text !== undefined && text.length > 0) found = text;
    return true;
  });
  return found;
}

/**
 * Lists the newest rollouts (by the time their names carry) with a preview each, reading only
 * the listed files' heads (and bounded tails); with `heads: false`, names and a `stat` only.
 */
export async function listCodexSessions(
  root: string,
  options: ListOptions = {},
): Promise<ForeignListing> {
  const limit = options.limit ?? 25;
  const sessions: ListedForeignSession[] = [];
  let more = false;
  for await (const session of walkCodexSessions(root)) {
    if (sessions.length >= limit) {
      more = true;
      break;
    }
    const stated = await withStat(session).catch(() => undefined);
    if (stated === undefined) continue; // removed since the folder was read
    sessions.push(
      options.heads === false ? unpreviewed(stated) : await previewCodexSession(stated),
    );
  }
  return { format: "codex", root, sessions, more };
}
