/**
 * Claude Code transcripts where Claude Code keeps them, `<root>/<project>/<session id>.jsonl`:
 * listed newest first (by modification time: the names carry no time) and found by id or
 * unique prefix from names alone.
 *
 * @module
 */
import { join } from "../../_path.ts";
import { checkSessionId } from "../../record/ids.ts";
import {
  beyondHead,
  type ForeignListing,
  type FoundSession,
  type ListedForeignSession,
  type ListOptions,
  onlyMatch,
  previewedPage,
  type PreviewOptions,
  withStat,
} from "../_find.ts";
import { dirEntries, previewLine, scanHead } from "../_head.ts";
import { isObject, obj, str } from "../_line.ts";
import { promptOf } from "./_prompt.ts";

const TRANSCRIPT = /^([0-9A-Za-z][0-9A-Za-z_-]*)\.jsonl$/;
const AGENT = /^agent-/;

/** Options of {@linkcode listClaudeSessions}. */
export interface ClaudeListOptions extends ListOptions {
  /** List empty files too (Claude Code leaves many). @default {false} */
  includeEmpty?: boolean;
}

async function transcriptsOf(root: string, project: string): Promise<FoundSession[]> {
  const dir = join(root, project);
  const found: FoundSession[] = [];
  for (const entry of await dirEntries(dir)) {
    const id = TRANSCRIPT.exec(entry.name)?.[1];
    if (!entry.isFile || id === undefined) continue;
    found.push({
      format: "claude-code",
      id,
      path: join(dir, entry.name),
      created: null,
      modified: null,
      sizeBytes: 0,
      project,
    });
  }
  return found;
}

async function projects(root: string): Promise<string[]> {
  return (await dirEntries(root)).filter((e) => e.isDirectory).map((e) => e.name).sort();
}

/**
 * Finds a transcript by full id or unique prefix among the project folders' file names; no
 * file is opened. Subagent transcripts (`agent-*`) are found by their own names.
 *
 * @throws {InvalidSessionIdError} when `idOrPrefix` is not a plain id
 * @throws {SessionNotFoundError} when no transcript matches
 * @throws {AmbiguousSessionError} when several match
 */
export async function findClaudeSession(root: string, idOrPrefix: string): Promise<FoundSession> {
  const prefix = checkSessionId(idOrPrefix);
  const matches: FoundSession[] = [];
  for (const project of await projects(root)) {
    for (const session of await transcriptsOf(root, project)) {
      const id = session.id.toLowerCase();
      if (id === prefix) return await withStat(session);
      if (id.startsWith(prefix) && (AGENT.test(prefix) || !AGENT.test(id))) matches.push(session);
    }
  }
  return await withStat(onlyMatch(idOrPrefix, root, matches));
}

const COMMAND = /<command-name>/;

/** The text of a user message that is not tool results. */
function userText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  if (content.some((b) => isObject(b) && b.type === "tool_result")) return undefined;
  const texts = content.filter((b) => isObject(b) && b.type === "text").map((b) => String(b.text));
  return texts.length > 0 ? texts.join("\n") : undefined;
}

/**
 * What a transcript's head tells for a listing: title, first real prompt, cwd, branch, model,
 * the first record's time; and its tail (read from the end, bounded) the last record's.
 */
export async function previewClaudeSession(
  session: FoundSession,
  options: PreviewOptions = {},
): Promise<ListedForeignSession> {
  let preview: string | null = null;
  let title: string | null = null;
  let cwd: string | null = null;
  let gitBranch: string | null = null;
  let model: string | null = null;
  let created: string | null = null;
  // A slash command is the title only when no prompt a person typed follows it in the head.
  let command: string | undefined;
  await scanHead(session.path, (value) => {
    const type = str(value, "type");
    if (type === "summary") title = str(value, "summary") ?? title;
    created ??= str(value, "timestamp") ?? null;
    cwd ??= str(value, "cwd") ?? null;
    const branch = str(value, "gitBranch");
    if (branch) gitBranch ??= branch;
    const message = obj(value, "message");
    if (type === "assistant" && message) model ??= str(message, "model") ?? null;
    if (type === "user" && message && value.isMeta !== true && value.isCompactSummary !== true) {
      const text = userText(message.content);
      const prompt = text === undefined ? undefined : promptOf(text);
      if (prompt !== undefined && COMMAND.test(text!)) command ??= prompt;
      else if (prompt !== undefined) preview ??= prompt;
    }
    return preview !== null && model !== null;
  });
  preview ??= command ?? null;
  const { found, lastAt } = await beyondHead(session, options);
  return {
    ...found,
    created,
    preview: preview === null ? null : previewLine(preview),
    title,
    cwd,
    gitBranch,
    model,
    firstAt: created,
    lastAt,
  };
}

/**
 * Lists the newest transcripts (by modification time) with a preview each: every project
 * folder's names are read and every transcript stat'ed, but only the listed ones' heads (and
 * bounded tails) are read, none with `heads: false`. Subagent transcripts and (unless asked)
 * empty files are left out.
 */
export async function listClaudeSessions(
  root: string,
  options: ClaudeListOptions = {},
): Promise<ForeignListing> {
  const all: FoundSession[] = [];
  for (const project of await projects(root)) {
    for (const session of await transcriptsOf(root, project)) {
      if (AGENT.test(session.id)) continue;
      const stated = await withStat(session);
      // The catalog's listing asks the same (`claudeListed`, its home's).
      if (stated.sizeBytes > 0 || options.includeEmpty) all.push(stated);
    }
  }
  all.sort((a, b) =>
    (b.modified ?? "").localeCompare(a.modified ?? "") || a.path.localeCompare(b.path)
  );
  const { sessions, more } = await previewedPage(all, options, previewClaudeSession);
  // The listed ones by their own last record (a copied home's files all have the minute of
  // the copy); one whose tail names no time goes last.
  const last = (s: ListedForeignSession) => s.lastAt ?? "";
  if (options.heads !== false) sessions.sort((a, b) => last(b).localeCompare(last(a)));
  return { format: "claude-code", root, sessions, more };
}
