/**
 * The sidecar file that keeps every byte a repair takes out of a session file, so that no
 * repair ever loses data.
 *
 * @module
 */
import { readLines, writeAll } from "../io/mod.ts";

/** The sidecar's path: next to the session file. */
export function quarantinePath(sessionPath: string): string {
  return `${sessionPath}.quarantine`;
}

/** One line taken out of a session file. */
export interface QuarantinedLine {
  /** The line's number in the session file before the repair; undefined for a torn last line. */
  line: number | undefined;
  /** Why it was taken out (a problem kind such as `torn_tail`). */
  kind: string;
  /** The byte offset of the line in the session file. */
  start: number;
  /** The line's exact bytes, without its newline. */
  bytes: Uint8Array;
}

const encoder = new TextEncoder();
const HEADER = "# turnlog quarantine: ";

async function sha256(bytes: Uint8Array): Promise<string> {
  const hash = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  return Array.from(hash, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** What identifies a quarantined line: where it stood and what it held. */
function identity(start: number, digest: string): string {
  return `${start}:${digest}`;
}

/**
 * The lines the sidecar already keeps, by identity: an interrupted repair may have copied them
 * without taking them out of the session file, and the next one must not copy them twice.
 */
async function quarantined(path: string): Promise<Set<string>> {
  const kept = new Set<string>();
  try {
    for await (const { text } of readLines(path)) {
      if (!text.startsWith(HEADER)) continue;
      const match = /, from byte (\d+), sha256 ([0-9a-f]{64}),/.exec(text);
      if (match) kept.add(identity(Number(match[1]), match[2]!));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return kept;
}

/**
 * The permissions a sidecar gets: those of the session file it comes from (its lines are that
 * file's bytes: tool output, secrets), else owner-only.
 */
async function modeOf(sessionPath: string): Promise<number> {
  try {
    const { mode } = await Deno.stat(sessionPath);
    if (mode !== null) return mode & 0o777;
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return 0o600;
}

/**
 * Appends lines to the sidecar and flushes it to disk before returning, so a caller may then
 * remove those bytes from the session file. Each entry is a `#` header line naming the
 * original line number, its byte offset and its SHA-256, then the original bytes unchanged. A
 * line the sidecar already keeps (same offset, same bytes) is not written again. The sidecar
 * has the session file's permissions (0600 when it has none), never the umask's.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { quarantineLines } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const session = join(dir, "s.jsonl");
 * await Deno.writeTextFile(session, "{}\n", { mode: 0o600 });
 * const sidecar = await quarantineLines(session, [
 *   { line: 2, kind: "torn_tail", start: 3, bytes: new TextEncoder().encode("{\"a") },
 * ]);
 * assert.equal((await Deno.stat(sidecar)).mode! & 0o777, 0o600);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function quarantineLines(
  sessionPath: string,
  lines: QuarantinedLine[],
): Promise<string> {
  const path = quarantinePath(sessionPath);
  if (lines.length === 0) return path;
  const kept = await quarantined(path);
  const at = new Date().toISOString();
  const parts: Uint8Array[] = [];
  for (const { line, kind, start, bytes } of lines) {
    const digest = await sha256(bytes);
    if (kept.has(identity(start, digest))) continue;
    const where = line === undefined ? "last line" : `line ${line}`;
    parts.push(
      encoder.encode(
        `${HEADER}${where}, ${kind}, ${bytes.length} bytes, from byte ${start}, sha256 ${digest}, at ${at}\n`,
      ),
      bytes,
      encoder.encode("\n"),
    );
  }
  if (parts.length === 0) return path;
  const mode = await modeOf(sessionPath);
  using file = await Deno.open(path, { create: true, append: true, mode });
  // The mode given at creation is narrowed by the umask only; a sidecar made before is
  // narrowed to the session file's permissions too.
  await Deno.chmod(path, mode).catch(() => {});
  for (const part of parts) await writeAll(file, part);
  await file.syncData();
  return path;
}

/**
 * Copies `lines` to the sidecar (see {@linkcode quarantineLines}), then runs `commit`, the
 * change that takes them out of the session file. When `commit` throws (the file changed
 * meanwhile, the disk is full) before the session file was renamed over, the sidecar is put
 * back as it was before (cut back to its old size, or removed when this call made it), so it
 * never lists a line still in the file.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "node:path";
 * import { quarantinePath, quarantineThen } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * const session = join(dir, "s.jsonl");
 * await Deno.writeTextFile(session, "{}\n{\"a");
 * const line = { line: 2, kind: "torn_tail", start: 3, bytes: new TextEncoder().encode("{\"a") };
 * await assert.rejects(() =>
 *   quarantineThen(session, [line], () => Promise.reject(new Error("Refused")))
 * );
 * await assert.rejects(() => Deno.stat(quarantinePath(session)), Deno.errors.NotFound);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function quarantineThen<T>(
  sessionPath: string,
  lines: QuarantinedLine[],
  commit: () => Promise<T>,
): Promise<T> {
  const path = quarantinePath(sessionPath);
  const before = await Deno.stat(path).then((info) => info.size, (error) => {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  });
  const file = await Deno.stat(sessionPath);
  try {
    await quarantineLines(sessionPath, lines);
    return await commit();
  } catch (error) {
    // A rename over the session file is the commit: once it happened (the path names a new
    // file), the lines are out of it, and the sidecar keeps them whatever failed after.
    const now = await Deno.stat(sessionPath).catch(() => file);
    if (now.ino !== file.ino || now.dev !== file.dev) throw error;
    if (before === null) {
      await Deno.remove(path).catch(() => {});
    } else {
      await Deno.truncate(path, before).catch(() => {});
    }
    throw error;
  }
}
