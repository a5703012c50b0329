/**
 * The sidecar file that keeps every byte a repair takes out of a session file, so that no
 * repair ever loses data.
 *
 * @module
 */
import { writeAll } from "../io/mod.ts";

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
  /** The line's exact bytes, without its newline. */
  bytes: Uint8Array;
}

const encoder = new TextEncoder();

/**
 * Appends lines to the sidecar and flushes it to disk before returning, so a caller may then
 * remove those bytes from the session file. Each entry is a `#` header line naming the
 * original line number, then the original bytes unchanged.
 */
export async function quarantineLines(
  sessionPath: string,
  lines: QuarantinedLine[],
): Promise<string> {
  const path = quarantinePath(sessionPath);
  if (lines.length === 0) return path;
  const at = new Date().toISOString();
  const parts: Uint8Array[] = [];
  for (const { line, kind, bytes } of lines) {
    parts.push(
      encoder.encode(
        `# turnlog quarantine: ${
          line === undefined ? "last line" : `line ${line}`
        }, ${kind}, ${bytes.length} bytes, at ${at}\n`,
      ),
    );
    parts.push(bytes, encoder.encode("\n"));
  }
  using file = await Deno.open(path, { create: true, append: true });
  for (const part of parts) await writeAll(file, part);
  await file.syncData();
  return path;
}
