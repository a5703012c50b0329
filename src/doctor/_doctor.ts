/**
 * The doctor's examination of every home the registry's adapters know (Codex, Claude Code,
 * Gemini CLI): per home, the tools' versions seen, the sessions the tool would not resume (its
 * check's findings), record types turnlog has no rule for and fields of known records it has
 * never seen (the drift of a format, per tool version, from the reader's pass), the sessions
 * the tool's own cleanup deletes within a week, and the disk used. One read per session (the
 * check is made on the way and kept); names and stats for the rest. With the catalog, the
 * sessions and their sizes are the catalog's, and a session's read is kept in its database:
 * a file unchanged since costs a `stat`, and one the catalog's update reads whole (new or
 * rewritten) is read once for both, the doctor's part given by the same reader.
 *
 * @module
 */
import type { DatabaseSync } from "node:sqlite";
import type { CatalogSession, CatalogSource, ReaderRead, UpdateProgress } from "../catalog/mod.ts";
import { ADAPTERS, type Env, type FormatAdapter } from "../formats/mod.ts";
import { type Examined, examineOrWhy, type KeptExaminer, keptExaminer } from "./_kept.ts";

/** A session its tool's check finds damaged, with what it found first. */
export interface DamagedSession {
  /** The session id its name carries. */
  id: string;
  path: string;
  /** How many findings the check has. */
  findings: number;
  /** The first finding, `path:line: what is wrong`. */
  first: string;
}

/** A record type turnlog has no rule for, in the sessions of one tool version. */
export interface DriftFinding {
  /** The tool version that wrote it (null: the file names none). */
  version: string | null;
  /** The kind, as the reader names it: `unknown:<type>`. */
  kind: string;
  /** Lines of that kind. */
  lines: number;
  /** Sessions that hold it. */
  sessions: number;
  /** One of them. */
  example: string;
}

/** A field of a known record that turnlog has never seen, in the sessions of one tool version. */
export interface FieldDriftFinding {
  /** The tool version that wrote it (null: the file names none). */
  version: string | null;
  /** Where it is and its key: `session_meta.payload.<key>`, `response_item.message.<key>`. */
  field: string;
  /** Lines that hold it. */
  lines: number;
  /** Sessions that hold it. */
  sessions: number;
  /** A few of them (at most {@linkcode FIELD_EXAMPLES}), `path:line` of the first line. */
  examples: string[];
}

/** Examples kept per unknown field and version. */
export const FIELD_EXAMPLES = 3;

/** Unknown fields reported per home at most (by lines, most first); more are counted. */
export const MAX_FIELD_FINDINGS = 20;

/** A session the tool's cleanup will delete soon. */
export interface ExpiringSession {
  id: string;
  path: string;
  /** When it was last written. */
  modified: string;
  /** When the cleanup may delete it (the last write plus the retention). */
  deletedFrom: string;
}

/** One tool's home as the doctor found it. */
export interface HomeExamination {
  /** The format's name (`codex`). */
  format: string;
  /** The tool, for people. */
  tool: string;
  /** The sessions root. */
  root: string;
  /** False when the root is not there (the tool is not used here). */
  exists: boolean;
  /** Sessions found. */
  sessions: number;
  /** Bytes their files take (subagents' transcripts included). */
  bytes: number;
  /** Tool versions seen, most sessions first. */
  versions: { version: string; sessions: number }[];
  /** Sessions the tool would not resume as they are. */
  unresumable: DamagedSession[];
  /**
   * Sessions whose findings are all lines that are not the format's, which the tool passes over
   * when it resumes them (Claude Code): resumed as they are; a repair sets the lines aside.
   */
  passedOver: DamagedSession[];
  /** Record types turnlog has no rule for, by tool version. */
  drift: DriftFinding[];
  /** Fields of known records turnlog has never seen, by tool version (the reader's pass). */
  fields: FieldDriftFinding[];
  /** Unknown fields found beyond {@linkcode MAX_FIELD_FINDINGS}, not listed. */
  moreFields: number;
  /** The tool's cleanup, when it has one: how long it keeps sessions, and where that is said. */
  retention: { days: number; source: string } | null;
  /** Sessions the cleanup deletes within {@linkcode EXPIRY_WINDOW_DAYS} days. */
  expiring: ExpiringSession[];
  /** Files that could not be read, `path: why`. */
  unreadable: string[];
}

/** What the doctor found over every home. */
export interface DoctorReport {
  /** When it looked. */
  at: string;
  homes: HomeExamination[];
  /** True when something needs the user (a session to repair or archive, a format drifting). */
  needsUser: boolean;
}

/** What the doctor asks of the catalog (`src/catalog`'s `Catalog` has it). */
export interface DoctorCatalog {
  /** The catalog's database, where the doctor keeps its table beside the catalog's. */
  readonly db: DatabaseSync;
  /** Brings the files of `sources` up to date with the disk. */
  update(
    sources: readonly CatalogSource[],
    options?: {
      onProgress?: ((progress: UpdateProgress) => void) | undefined;
      text?: boolean;
      onRead?: ((read: ReaderRead) => void) | undefined;
    },
  ): Promise<unknown>;
  /** The sessions of `sources` as the last update left them. */
  sessions(sources: readonly CatalogSource[]): CatalogSession[];
}

/** Options of {@linkcode examineHomes}. */
export interface DoctorOptions {
  /** Where the homes are (`CODEX_HOME`, `HOME`, ...). @default {Deno.env} */
  env?: Env;
  /** The time to measure the cleanup from. @default {new Date()} */
  now?: Date;
  /**
   * The catalog: brought up to date for the homes, it lists their sessions and sizes, and its
   * database keeps what the doctor read of each file (read again only when the file changed).
   * Without it every file is walked and read.
   */
  catalog?: DoctorCatalog | undefined;
  /** Told how the catalog's update goes (a big first build shows its progress). */
  onProgress?: ((progress: UpdateProgress) => void) | undefined;
}

/** How far ahead the doctor warns of a cleanup. */
export const EXPIRY_WINDOW_DAYS = 7;

const DAY = 24 * 60 * 60 * 1000;

/** A session of a home as it is listed: its file, and the bytes of its files together. */
interface ListedSession {
  id: string;
  path: string;
  bytes: number;
}

/** A file's examination and its last write; null when it cannot be `stat`ed. */
type ExaminedAt = (Examined & { modified: Date }) | { unreadable: string; modified: null };

/** Where the sessions and what was read of them come from: the files, or the catalog. */
interface SessionsOf {
  /** A home's sessions, by path, and the files that could not be `stat`ed. */
  list(adapter: FormatAdapter, root: string): Promise<
    { sessions: ListedSession[]; unreadable: string[] }
  >;
  /** What a session's file tells, with when it was last written. */
  examine(adapter: FormatAdapter, path: string): Promise<ExaminedAt>;
}

async function sizeOf(path: string): Promise<number> {
  return await Deno.stat(path).then((info) => info.size, () => 0);
}

const byPath = (a: { path: string }, b: { path: string }) =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : 0;

/** The sessions walked from names and `stat`ed, each file read whole. */
const fromFiles: SessionsOf = {
  async list(adapter, root) {
    const sessions: ListedSession[] = [];
    const unreadable: string[] = [];
    for await (const session of adapter.search.walk(root)) {
      let info: Deno.FileInfo;
      try {
        info = await Deno.stat(session.path);
      } catch (error) {
        unreadable.push(`${session.path}: ${(error as Error).message}`);
        continue;
      }
      let bytes = info.size;
      for (const subagent of session.subagents) bytes += await sizeOf(subagent);
      sessions.push({ id: session.id, path: session.path, bytes });
    }
    return { sessions: sessions.sort(byPath), unreadable };
  },
  async examine(adapter, path) {
    let info: Deno.FileInfo;
    try {
      info = await Deno.stat(path);
    } catch (error) {
      return { unreadable: `${path}: ${(error as Error).message}`, modified: null };
    }
    return { ...await examineOrWhy(adapter, path, info.size), modified: info.mtime ?? new Date() };
  },
};

/** The sessions as the catalog lists them, each file read only when it changed. */
function fromCatalog(catalog: DoctorCatalog, kept: KeptExaminer): SessionsOf {
  return {
    list(adapter, root) {
      const sessions = catalog.sessions([{ format: adapter.name, root }])
        .map((session) => ({ id: session.id, path: session.path, bytes: session.bytes }));
      return Promise.resolve({ sessions: sessions.sort(byPath), unreadable: [] });
    },
    examine: (adapter, path) => kept.examine(adapter, path),
  };
}

/** The examination of one adapter's home. */
async function examineHome(
  adapter: FormatAdapter,
  root: string,
  now: Date,
  of: SessionsOf,
): Promise<HomeExamination> {
  const home: HomeExamination = {
    format: adapter.name,
    tool: adapter.tool,
    root,
    exists: await Deno.stat(root).then((info) => info.isDirectory, () => false),
    sessions: 0,
    bytes: 0,
    versions: [],
    unresumable: [],
    passedOver: [],
    drift: [],
    fields: [],
    moreFields: 0,
    retention: null,
    expiring: [],
    unreadable: [],
  };
  if (!home.exists) return home;
  home.retention = (await adapter.retention?.(root)) ?? null;
  const versions = new Map<string, number>();
  const drift = new Map<string, DriftFinding>();
  const fields = new Map<string, FieldDriftFinding>();
  const listed = await of.list(adapter, root);
  home.unreadable.push(...listed.unreadable);
  for (const session of listed.sessions) {
    const examined = await of.examine(adapter, session.path);
    if (examined.modified === null) {
      home.unreadable.push(examined.unreadable);
      continue;
    }
    home.sessions++;
    home.bytes += session.bytes;
    const modified = examined.modified;
    if (home.retention !== null) {
      const deletedFrom = modified.getTime() + home.retention.days * DAY;
      if (deletedFrom - now.getTime() <= EXPIRY_WINDOW_DAYS * DAY) {
        home.expiring.push({
          id: session.id,
          path: session.path,
          modified: modified.toISOString(),
          deletedFrom: new Date(deletedFrom).toISOString(),
        });
      }
    }
    if ("unreadable" in examined) {
      home.unreadable.push(examined.unreadable);
      continue;
    }
    const { version, findings, first, badLines, drift: kinds, fields: unknownFields } =
      examined.examination;
    if (version !== null) versions.set(version, (versions.get(version) ?? 0) + 1);
    if (findings > 0) {
      const passed = adapter.passesOverBadLines === true && badLines === findings;
      (passed ? home.passedOver : home.unresumable)
        .push({ id: session.id, path: session.path, findings, first: first ?? "" });
    }
    for (const [kind, lines] of Object.entries(kinds)) {
      const key = `${version ?? ""}\u0000${kind}`;
      const found = drift.get(key);
      if (found === undefined) {
        drift.set(key, { version, kind, lines, sessions: 1, example: session.path });
      } else {
        found.lines += lines;
        found.sessions++;
      }
    }
    for (const [field, seen] of Object.entries(unknownFields)) {
      const key = `${version ?? ""}\u0000${field}`;
      const example = `${session.path}:${seen.line}`;
      const found = fields.get(key);
      if (found === undefined) {
        fields.set(key, { version, field, lines: seen.lines, sessions: 1, examples: [example] });
      } else {
        found.lines += seen.lines;
        found.sessions++;
        if (found.examples.length < FIELD_EXAMPLES) found.examples.push(example);
      }
    }
  }
  const byLines = [...fields.values()].sort((a, b) =>
    b.lines - a.lines || a.field.localeCompare(b.field)
  );
  home.fields = byLines.slice(0, MAX_FIELD_FINDINGS).sort((a, b) =>
    (a.version ?? "").localeCompare(b.version ?? "") || a.field.localeCompare(b.field)
  );
  home.moreFields = byLines.length - home.fields.length;
  for (const field of home.fields) field.examples.sort();
  home.versions = [...versions].map(([version, sessions]) => ({ version, sessions }))
    .sort((a, b) => b.sessions - a.sessions || b.version.localeCompare(a.version));
  home.drift = [...drift.values()].sort((a, b) =>
    (a.version ?? "").localeCompare(b.version ?? "") || a.kind.localeCompare(b.kind)
  );
  home.unresumable.sort(byPath);
  home.passedOver.sort(byPath);
  home.expiring.sort((a, b) => a.deletedFrom.localeCompare(b.deletedFrom) || byPath(a, b));
  return home;
}

/**
 * Examines every home the registry's adapters know, from the environment's variables.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { examineHomes } from "./mod.ts";
 * const empty = await Deno.makeTempDir();
 * const env = { get: (name: string) => name === "HOME" ? empty : undefined };
 * const report = await examineHomes({ env });
 * assert.equal(report.needsUser, false);
 * assert.equal(report.homes.every((home) => !home.exists), true);
 * await Deno.remove(empty);
 * ```
 */
export async function examineHomes(options: DoctorOptions = {}): Promise<DoctorReport> {
  const env = options.env ?? Deno.env;
  const now = options.now ?? new Date();
  const roots = ADAPTERS.map((adapter) => ({ adapter, root: adapter.home.root(env) }));
  let of = fromFiles;
  if (options.catalog !== undefined) {
    const sources: CatalogSource[] = [];
    for (const { adapter, root } of roots) {
      if (await Deno.stat(root).then((info) => info.isDirectory, () => false)) {
        sources.push({ format: adapter.name, root });
      }
    }
    // The facts alone: the full-text index is built by the first search that needs it. What
    // the update reads of a file whole is what the doctor wants of it too: kept, not read again.
    const kept = keptExaminer(options.catalog.db);
    await options.catalog.update(sources, {
      onProgress: options.onProgress,
      text: false,
      onRead: kept.keep,
    });
    of = fromCatalog(options.catalog, kept);
  }
  const homes: HomeExamination[] = [];
  for (const { adapter, root } of roots) homes.push(await examineHome(adapter, root, now, of));
  const needsUser = homes.some((home) =>
    home.unresumable.length > 0 || home.drift.length > 0 || home.fields.length > 0 ||
    home.expiring.length > 0
  );
  return { at: now.toISOString(), homes, needsUser };
}
