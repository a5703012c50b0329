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
 * Appends lines to the sidecar and flushes it to disk before returning, so a caller may then
 * remove those bytes from the session file. Each entry is a `#` header line naming the
 * original line number, its byte offset and its SHA-256, then the original bytes unchanged. A
 * line the sidecar already keeps (same offset, same bytes) is not written again.
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
  using file = await Deno.open(path, { create: true, append: true });
  for (const part of parts) await writeAll(file, part);
  await file.syncData();
  return path;
}
