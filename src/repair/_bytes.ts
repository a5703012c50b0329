/**
 * The bytes a repair keeps and checks: every line it takes out or changes, read exactly for
 * the sidecar, and whether a file's last byte ends its line.
 *
 * @module
 */
import { readRange } from "../io/mod.ts";
import type { QuarantinedLine } from "../store/mod.ts";

/** A line of the file a repair takes out or changes: where it is and why. */
export interface LineToKeep {
  /** Its number in the file, when it has one. */
  line: number | undefined;
  /** Why it leaves (a problem kind such as `torn_tail`). */
  kind: string;
  /** Its first byte. */
  start: number;
  /** The end of its range (its newline included, when it has one). */
  end: number;
  /** Its length without the newline. */
  bytes: number;
}

/**
 * The exact bytes of each line, without its newline, for the sidecar. The caller holds what
 * keeps the file from shrinking meanwhile (the lock, or a re-check before the rename).
 */
export async function readKeptLines(
  path: string,
  lines: readonly LineToKeep[],
): Promise<QuarantinedLine[]> {
  using file = await Deno.open(path, { read: true });
  const kept: QuarantinedLine[] = [];
  for (const m of lines) {
    const bytes = await readRange(file, m);
    kept.push({ line: m.line, kind: m.kind, start: m.start, bytes: bytes.subarray(0, m.bytes) });
  }
  return kept;
}

/** Whether the file's last byte is a newline (an empty file ends its last line too). */
export async function endsWithNewline(file: Deno.FsFile, size: number): Promise<boolean> {
  if (size === 0) return true;
  const [last] = await readRange(file, { start: size - 1, end: size });
  return last === 10;
}
