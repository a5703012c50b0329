/**
 * Import: another tool's session (a Codex rollout, a Claude Code transcript: any format an
 * adapter reads) continued in turnlog. The active branch's history, replayed and normalized, is written as a NEW turnlog
 * session whose `session_meta` says where it came from; the source file is only read.
 *
 * @module
 */
import { resolve } from "node:path";
import { TurnlogError } from "../errors/mod.ts";
import {
  ADAPTERS,
  detectAdapter,
  findForeignSession,
  ForeignSessionError,
  type ForeignSource,
  foreignSource,
  foreignToolsInWords,
  type FormatAdapter,
  homeRoots,
  homesUnsetError,
  type SessionAdapter,
  type SourceOptions,
} from "../formats/mod.ts";
import {
  type LineProblem,
  makeRecord,
  type ResponseItem,
  responseItemRecord,
  type SessionMeta,
} from "../record/mod.ts";
import { resumeForeignFile } from "../resume/mod.ts";
import {
  AmbiguousSessionError,
  createSession,
  resolveSessionsRoot,
  SessionNotFoundError,
  type SessionStore,
} from "../store/mod.ts";

/** Options of {@linkcode importSession}. */
export interface ImportOptions {
  /** The turnlog sessions root to write into; absent: {@linkcode resolveSessionsRoot}. */
  root?: string | undefined;
  /** The store to write into (a database, see `openStore`); absent: the file store at `root`. */
  store?: SessionStore | undefined;
  /**
   * The file's adapter, when the command that found the file knows it (any format's: turnlog's
   * own is refused as with detection). Absent: told from the file's head.
   */
  adapter?: SessionAdapter | undefined;
}

/** What an import wrote. */
export interface ImportedSession {
  /** The new turnlog session's id (a UUIDv7, new). */
  sessionId: string;
  /** The new session's file (in a database: `<store>#<id>`). */
  path: string;
  /** The sessions root it was written into (a database: the store's name). */
  root: string;
  /** Where it came from (also in its `session_meta.importedFrom`). */
  source: NonNullable<SessionMeta["importedFrom"]>;
  /** History items written: the active branch's history, normalized. */
  items: number;
  /** Tool calls in that history (each one followed by its output). */
  calls: number;
  /** Outputs synthesized for calls the source left without one. */
  synthesized: number;
  /** Outputs of the source left out (no call before them, or a second one). */
  dropped: number;
  /** Lines of the source that are not valid, passed over. */
  problems: number;
  /** Those lines, each `path:line: what is wrong`. */
  skipped: LineProblem[];
}

/**
 * Imports the session file at `path` (a Codex rollout or a Claude Code transcript, told from
 * its head) as a new turnlog session under `options.root`: a `session_meta` recording the
 * source (`importedFrom`), one `turn_context` for the import, the history as `response_item`
 * records, and a `run_finished`. `resume` continues it like any session. The source is never
 * written.
 *
 * @throws {ForeignSessionError} when the file is not another tool's session file
 * @throws {SessionFileError} when it holds no conversation (an empty or metadata-only file)
 */
export async function importSession(
  path: string,
  options: ImportOptions = {},
): Promise<ImportedSession> {
  const adapter = await foreignAdapterOf(path, options.adapter);
  const format = adapter.name;
  const resumed = await resumeForeignFile(path, format);
  const { meta } = resumed;
  const localOnly = adapter.localOnly;
  const asked = localOnly ? resumed.history.filter((item) => !localOnly(item)) : resumed.history;
  const history = await withInstructions(path, adapter, asked);
  const policy = resumed.lastTurn?.policy ?? meta.policy;
  const model = resumed.lastTurn?.model ?? meta.model;
  const source = { format, path: resolve(path), sessionId: resumed.sourceSessionId };
  const root = options.store?.name ?? resolveSessionsRoot(options.root);
  const created = await createSession(options.store ?? root, {
    cwd: meta.cwd,
    modelProvider: meta.modelProvider,
    model,
    wireApi: meta.wireApi,
    policy,
    importedFrom: source,
  });
  const runId = created.meta.id;
  try {
    await created.writer.append([
      makeRecord("turn_context", { runId, model, wireApi: meta.wireApi, policy, resumed: false }),
      ...history.map((item) => responseItemRecord(item)),
      makeRecord("run_finished", { runId, outcome: "succeeded", rounds: 0 }),
    ]);
  } finally {
    await created.writer.close();
  }
  return {
    sessionId: runId,
    path: created.location.path,
    root,
    source,
    items: history.length,
    calls: history.filter((item) => item.type === "function_call").length,
    synthesized: resumed.synthesizedItems.length,
    dropped: resumed.droppedItems.length,
    problems: resumed.problems.length,
    skipped: resumed.problems,
  };
}

/**
 * A Codex session's history with Codex's base instructions (its `session_meta`) as the first
 * system message: what Codex sent first in every request, turnlog sends too.
 */
async function withInstructions(
  path: string,
  adapter: FormatAdapter,
  history: ResponseItem[],
): Promise<ResponseItem[]> {
  const instructions = await adapter.instructions?.(path) ?? null;
  if (instructions === null) return history;
  return [{ type: "message", role: "system", content: instructions }, ...history];
}

/** The file's adapter (the one given, else told from its head), refused if turnlog's own. */
async function foreignAdapterOf(
  path: string,
  given: SessionAdapter | undefined,
): Promise<FormatAdapter> {
  const detected = given ? { adapter: given } : await detectAdapter(path);
  if ("reason" in detected) throw new ForeignSessionError(detected.reason);
  const { adapter } = detected;
  if (adapter.own) {
    throw new ForeignSessionError(
      `${path} is a turnlog session already: continue it with resume, no import needed`,
    );
  }
  return adapter;
}

/** A session found by id in a Codex or Claude Code root. */
export interface LocatedSession {
  /** The session's id, as its file name gives it. */
  id: string;
  /** The session's file. */
  path: string;
  /** Where it was found. */
  source: ForeignSource;
}

/**
 * Finds another tool's session by id or unique prefix: in the root the options name (a
 * tool's home, or a folder holding a tool's sessions), else in every adapter's default home
 * (Codex's and Claude Code's), from file names alone.
 *
 * @throws {SessionNotFoundError} when no session matches
 * @throws {AmbiguousSessionError} when several match (in one home, or one in each)
 */
export async function locateForeignSession(
  idOrPrefix: string,
  options: SourceOptions = {},
): Promise<LocatedSession> {
  const named = await foreignSource(options);
  if (named) {
    const { id, path } = await findForeignSession(named, idOrPrefix);
    return { id, path, source: named };
  }
  if (options.sessionsDir !== undefined) {
    const flags = ADAPTERS.map((adapter) => `--${adapter.flag}`);
    throw new TurnlogError(
      "not_found",
      `No ${foreignToolsInWords()} sessions in ${options.sessionsDir}: ` +
        `name a tool's sessions root or its home (or use ${flags.join(", ")})`,
    );
  }
  const found: LocatedSession[] = [];
  // A home nothing names (HOME unset) is not looked for in the current folder.
  const homes = homeRoots(ADAPTERS, options.env ?? Deno.env);
  for (const { adapter, root } of homes.found) {
    const source = { format: adapter.name, root };
    try {
      const { id, path } = await findForeignSession(source, idOrPrefix);
      found.push({ id, path, source });
    } catch (error) {
      if (!(error instanceof SessionNotFoundError)) throw error;
    }
  }
  if (found.length === 1) return found[0]!;
  if (found.length === 0 && homes.unset.length > 0) throw homesUnsetError(homes.unset);
  if (found.length === 0) {
    throw new SessionNotFoundError(idOrPrefix, `${foreignToolsInWords("and", true)} homes`);
  }
  throw new AmbiguousSessionError(
    idOrPrefix,
    found.map((f) => ({ id: f.id, path: f.path, createdAt: f.source.format })),
  );
}
