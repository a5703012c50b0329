/**
 * Export: a session of any format continued in another tool. The source (opened read-only) is
 * read as its resume reads it; the target's adapter writes it as a NEW session of its tool, in
 * the tool's home as the environment names it (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`,
 * `GEMINI_CLI_HOME`), or turnlog writes it into its own store. What the target cannot carry
 * is counted, never dropped silently.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import {
  ADAPTERS,
  type Degraded,
  type Env,
  type ExportConversation,
  type FormatAdapter,
  turnlogAdapter,
  type WrittenSession,
} from "../formats/mod.ts";
import type { LineProblem } from "../record/mod.ts";
import { resolveSessionsRoot } from "../store/mod.ts";
import { readConversation } from "./_conversation.ts";
import { writeTurnlogSession } from "./_turnlog.ts";

/** turnlog's own name as a target (`--to turnlog`): its format's name. */
export const TURNLOG_TARGET: string = turnlogAdapter.name;

/** The targets `--to` takes: each adapter that writes, by its flag, and `turnlog`. */
export function exportTargets(): string[] {
  return [...ADAPTERS.filter((adapter) => adapter.write).map((a) => a.flag), TURNLOG_TARGET];
}

/** Options of {@linkcode exportSession}. */
export interface ExportOptions {
  /** The target: an adapter's flag or name (`codex`, `claude`, `gemini`), or `turnlog`. */
  to: string;
  /** The project folder of the new session; absent: the source's when it exists here, else the current one. */
  cwd?: string | undefined;
  /** The environment the tool's home is read from. @default {Deno.env} */
  env?: Env | undefined;
  /** turnlog's sessions root (`--to turnlog`); absent: {@linkcode resolveSessionsRoot}. */
  root?: string | undefined;
  /** The new session's id (tests); absent: a new one. */
  id?: string | undefined;
  /** The time of writing (names files where the tool names them by time). @default {new Date()} */
  now?: Date | undefined;
}

/** What was carried, by kind. */
export interface Carried {
  /** User messages (compaction summaries included). */
  userMessages: number;
  /** Assistant messages. */
  assistantMessages: number;
  /** Tool calls. */
  calls: number;
  /** Tool results (each right after its call). */
  results: number;
}

/** What an export wrote. */
export interface ExportedSession {
  /** The target (`codex`, `claude`, `gemini`, `turnlog`). */
  target: string;
  /** The new session's id. */
  id: string;
  /** The new session's file. */
  path: string;
  /** Its project folder. */
  cwd: string;
  /** Where the folder came from: given, the source's recorded one, or the current one. */
  cwdFrom: "given" | "recorded" | "current";
  /** The command that resumes it. */
  resume: string;
  /** Where it came from. */
  source: { format: string; sessionId: string | null; path: string };
  /** What was carried. */
  carried: Carried;
  /** What could not be carried as it was. */
  degraded: Degraded[];
  /** Lines of the source that are not valid, skipped (as its resume skips them). */
  skipped: LineProblem[];
}

/** The adapter a target names, or undefined for turnlog's own store. */
function targetAdapter(to: string): FormatAdapter | undefined {
  if (to === TURNLOG_TARGET) return undefined;
  const adapter = ADAPTERS.find((a) => a.write && (a.flag === to || a.name === to));
  if (adapter === undefined) {
    throw new TurnlogError(
      "usage",
      `Unknown target ${JSON.stringify(to)}: --to takes ${exportTargets().join(", ")}`,
    );
  }
  return adapter;
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

/** What the items carry, by kind. */
function carriedOf(conversation: ExportConversation, target: string): Carried {
  const carried = { userMessages: 0, assistantMessages: 0, calls: 0, results: 0 };
  for (const { item } of conversation.items) {
    if (item.type === "message") {
      if (item.role === "user") carried.userMessages++;
      else if (item.role === "assistant") carried.assistantMessages++;
    } else if (item.type === "compaction_summary") {
      // Every target but turnlog carries the summary as a user message of its own kind.
      if (target !== TURNLOG_TARGET) carried.userMessages++;
    } else if (item.type === "function_call") carried.calls++;
    else carried.results++;
  }
  return carried;
}

/**
 * Exports the session file at `path` (any format turnlog reads) to `options.to`: a new session
 * the target tool resumes, written whole, never over a file; the source is only read.
 *
 * @example
 * ```ts ignore
 * const exported = await exportSession("~/.claude/projects/-w/7acd37a8.jsonl", { to: "codex" });
 * console.log(exported.resume); // codex resume 019...
 * ```
 *
 * @throws {TurnlogError} `usage` for an unknown target
 * @throws {ForeignSessionError} when the file is no session file turnlog knows
 * @throws {SessionFileError} when it holds no conversation
 * @throws {ExportWriteError} when the target's home cannot be written
 */
export async function exportSession(
  path: string,
  options: ExportOptions,
): Promise<ExportedSession> {
  const adapter = targetAdapter(options.to);
  const target = adapter?.flag ?? TURNLOG_TARGET;
  const read = await readConversation(path);
  const recorded = read.cwd !== null && await isFolder(read.cwd);
  const cwd = options.cwd ?? (recorded ? read.cwd! : Deno.cwd());
  const cwdFrom = options.cwd !== undefined ? "given" : recorded ? "recorded" : "current";
  const source = { format: read.format, sessionId: read.sessionId, path: read.path };
  const conversation: ExportConversation = {
    source,
    cwd,
    model: read.model,
    provider: read.meta.modelProvider || null,
    approval: (read.lastTurn?.policy ?? read.meta.policy).approval,
    items: read.items,
  };
  const write = { id: options.id, now: options.now };
  const written: WrittenSession = adapter
    ? await adapter.write!(conversation, {
      ...write,
      root: adapter.home.root(options.env ?? Deno.env),
    })
    : await writeTurnlogSession(conversation, {
      ...write,
      root: resolveSessionsRoot(options.root),
    });
  const degraded = [...read.degraded, ...written.degraded];
  if (read.synthesized > 0) {
    degraded.push({
      what: "calls the source left without a result",
      count: read.synthesized,
      how: "given the result the source tool's own resume sends for it (an error)",
    });
  }
  if (read.skipped.length > 0) {
    degraded.push({
      what: "lines of the source that are not valid",
      count: read.skipped.length,
      how: "skipped, as the source's resume skips them",
    });
  }
  return {
    target,
    id: written.id,
    path: written.path,
    cwd,
    cwdFrom,
    resume: written.resume,
    source,
    carried: carriedOf(conversation, target),
    degraded,
    skipped: read.skipped,
  };
}
