/**
 * `restore`: an archived session written back into its tool's home byte for byte (its latest
 * version, or the one asked for), with its subagent files; never over a different file. With
 * `cwd`, into a project that moved: the format's adapter says where the file goes and which
 * fields of a line name the folder, and those lines alone are written anew.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { basename, dirname, join, resolve } from "node:path";
import { adapterOfData, type Env, type Relocation, type SessionFormat } from "../formats/mod.ts";
import { TurnlogError } from "../errors/mod.ts";
import { resolveStoreSpec } from "../store/mod.ts";
import { readChunk } from "./_chunks.ts";
import { FILE_MODE } from "./_durable.ts";
import type { ArchivedFile } from "./_index.ts";
import { readIndex } from "./_index.ts";
import { type ArchiveLayout, archiveLayout } from "./_layout.ts";
import { type ArchivedSession, archivedSessions, findArchived } from "./_sessions.ts";

/** Options of {@linkcode restoreSession}. */
export interface RestoreOptions {
  /** The archive folder. */
  from: string;
  /** The version of the session's own file. @default {the latest} */
  version?: number;
  /**
   * The home to restore into: the tool's home folder (the one holding its sessions root, as
   * `~/.claude` holds `projects`), or turnlog's sessions folder. @default {the home the environment names}
   */
  home?: string;
  /** The session's new working directory: the project moved there. */
  cwd?: string;
  /** The environment the home comes from. @default {Deno.env} */
  env?: Env;
}

/** One file restore wrote, or found there already. */
export interface RestoredFile {
  /** Where it is. */
  path: string;
  /** Written now, or found there with the same bytes. */
  status: "written" | "same";
  /** Its sha256. */
  sha256: string;
}

/** What a restore did. */
export interface Restored {
  /** The session. */
  session: ArchivedSession;
  /** The version of its own file restored. */
  version: number;
  /** Its files, its own first. */
  files: RestoredFile[];
  /** With `cwd`: each field rewritten, with the number of lines it was in. */
  fields: Map<string, number>;
}

/** A file of another content where the session would go. */
export class RestoreConflictError extends TurnlogError {
  /** An error naming the file. */
  constructor(path: string, options?: ErrorOptions) {
    super("session_file", `A different file is already at ${path}: it was left as it is`, options);
    this.name = "RestoreConflictError";
  }
}

/** The sessions root a format's files go back into. */
function targetRoot(format: string, options: RestoreOptions): string {
  const adapter = adapterOfData({ format: format as SessionFormat });
  if (adapter.own) return resolve(options.home ?? resolveStoreSpec());
  if (options.home !== undefined) return resolve(options.home, adapter.home.inside);
  return adapter.home.root(options.env ?? Deno.env);
}

/** The file's bytes, chunk by chunk, each checked. */
async function* bytesOf(layout: ArchiveLayout, file: ArchivedFile): AsyncIterable<Uint8Array> {
  for (const chunk of file.chunks) yield await readChunk(layout, chunk);
}

/** The file's bytes with the working-directory fields moved to `cwd`, line by line. */
async function* relocated(
  source: AsyncIterable<Uint8Array>,
  relocation: Relocation,
  cwd: string,
  fields: Map<string, number>,
): AsyncIterable<Uint8Array> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const markers = relocation.markedBy.map((text) => encoder.encode(text));
  let from: string | null = null;
  let carry = new Uint8Array(0);
  const lineOf = (line: Uint8Array): Uint8Array => {
    if (!markers.some((marker) => indexOf(line, marker) >= 0)) return line;
    let value: unknown;
    try {
      value = JSON.parse(decoder.decode(line));
    } catch {
      return line;
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) return line;
    const json = value as Record<string, unknown>;
    from ??= relocation.cwdOf(json) ?? null;
    const changed = relocation.line(json, cwd, from);
    if (changed.length === 0) return line;
    for (const field of changed) fields.set(field, (fields.get(field) ?? 0) + 1);
    return encoder.encode(JSON.stringify(json));
  };
  for await (const bytes of source) {
    const all = carry.length === 0 ? bytes : join2(carry, bytes);
    let start = 0;
    const out: Uint8Array[] = [];
    for (let i = all.indexOf(10); i >= 0; i = all.indexOf(10, start)) {
      out.push(lineOf(all.subarray(start, i)), NEWLINE);
      start = i + 1;
    }
    carry = all.slice(start);
    yield join2(...out);
  }
  if (carry.length > 0) yield lineOf(carry);
}

const NEWLINE = new Uint8Array([10]);

function join2(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0]!;
  for (let i = haystack.indexOf(first); i >= 0; i = haystack.indexOf(first, i + 1)) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

async function sha256Of(path: string): Promise<string | undefined> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const hash = createHash("sha256");
  for await (const bytes of file.readable) hash.update(bytes);
  return hash.digest("hex");
}

/**
 * Writes the bytes to `path` whole, never over another file: a temp beside it, fsync'd, then
 * linked to the name (which fails when a file took the name meanwhile) and the temp removed.
 */
async function writeNew(path: string, bytes: AsyncIterable<Uint8Array>): Promise<string> {
  await Deno.mkdir(dirname(path), { recursive: true });
  const temp = join(dirname(path), `.${basename(path)}.restore-${Deno.pid}.tmp`);
  const hash = createHash("sha256");
  try {
    {
      using file = await Deno.open(temp, { write: true, createNew: true, mode: FILE_MODE });
      for await (const part of bytes) {
        hash.update(part);
        let written = 0;
        while (written < part.length) written += await file.write(part.subarray(written));
      }
      await file.sync();
    }
    try {
      await Deno.link(temp, path);
    } catch (error) {
      if (error instanceof Deno.errors.AlreadyExists) throw new RestoreConflictError(path);
      throw error;
    }
  } finally {
    await Deno.remove(temp).catch(() => {});
  }
  return hash.digest("hex");
}

/** Restores one file: its bytes (relocated or not) at `path`, or the same bytes found there. */
async function restoreFile(
  path: string,
  bytes: () => AsyncIterable<Uint8Array>,
  expected: string | undefined,
): Promise<RestoredFile> {
  const there = await sha256Of(path);
  if (there !== undefined) {
    // The bytes to write are hashed first when they are relocated: the file there may hold them.
    let want = expected;
    if (want === undefined) {
      const hash = createHash("sha256");
      for await (const part of bytes()) hash.update(part);
      want = hash.digest("hex");
    }
    if (there === want) return { path, status: "same", sha256: there };
    throw new RestoreConflictError(path);
  }
  return { path, status: "written", sha256: await writeNew(path, bytes()) };
}

/**
 * Restores the archived session `target` names (an id, a unique prefix, or its file's path).
 *
 * @throws {TurnlogError} `not_found` / `ambiguous` for the target, `usage` for a version or a
 * move the format cannot make
 * @throws {RestoreConflictError} when another file is where one of the session's would go
 */
export async function restoreSession(target: string, options: RestoreOptions): Promise<Restored> {
  const layout = archiveLayout(resolve(options.from));
  const session = findArchived(archivedSessions(await readIndex(layout)), target);
  const latest = session.versions.at(-1)!;
  const own = options.version === undefined
    ? latest
    : session.versions.find((file) => file.version === options.version);
  if (own === undefined) {
    const known = session.versions.map((file) => file.version).join(", ");
    throw new TurnlogError(
      "usage",
      `Session ${session.id} has no version ${options.version} (its versions: ${known})`,
    );
  }
  const root = targetRoot(session.format, options);
  const cwd = options.cwd === undefined ? undefined : resolve(options.cwd);
  const adapter = adapterOfData({ format: session.format as SessionFormat });
  const relocation = cwd === undefined || adapter.own ? undefined : adapter.relocate;
  if (cwd !== undefined && relocation === undefined) {
    throw new TurnlogError(
      "usage",
      `--cwd cannot move a ${adapter.tool} session: its format says nothing of its folder`,
    );
  }
  const fields = new Map<string, number>();
  const files: RestoredFile[] = [];
  for (const file of [own, ...session.subagents]) {
    const rel = relocation && cwd ? await relocation.place(file.rel, cwd, root) : file.rel;
    const path = join(root, ...rel.split("/"));
    const bytes = relocation && cwd
      ? () => relocated(bytesOf(layout, file), relocation, cwd, fields)
      : () => bytesOf(layout, file);
    const expected = relocation ? undefined : file.sha256;
    // Each file's bytes are read once (to compare with a file there, or to write), so each
    // relocated field is counted once.
    files.push(await restoreFile(path, bytes, expected));
  }
  if (relocation && cwd) {
    // What the tool keeps beside the project's sessions to know it by (Gemini's marker).
    const rel = await relocation.place(own.rel, cwd, root);
    for (const marker of relocation.markers?.(rel, cwd) ?? []) {
      const path = join(root, ...marker.rel.split("/"));
      const there = await Deno.readTextFile(path).catch(() => undefined);
      if (there === undefined) {
        await writeNew(
          path,
          (async function* () {
            yield new TextEncoder().encode(marker.text);
          })(),
        );
      }
    }
  }
  return { session, version: own.version, files, fields };
}
