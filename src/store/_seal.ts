/**
 * The torn tail sealed: before anything is appended, a session file ends with a newline. A
 * complete record without its newline just gets one; a torn fragment (a crash in the middle
 * of an append) is copied to the quarantine sidecar, flushed, and only then cut off, so every
 * original byte is kept.
 *
 * @module
 */
import { readLinesBackward, readRange, writeAll } from "../io/mod.ts";
import { parseRecordLine } from "../record/mod.ts";
import { quarantineLines } from "./_sidecar.ts";

const NEWLINE = 10;

/**
 * Makes sure the session file at `path`, open for appending and locked as `file`, ends with a
 * newline. Its last line is found by the backward reader and parsed by the record parser: a
 * valid record gets its newline; anything else is moved to the sidecar, its exact bytes.
 */
export async function sealTornTail(path: string, file: Deno.FsFile): Promise<void> {
  const { size } = await file.stat();
  if (size === 0) return;
  const last = await readRange(file, { start: size - 1, end: size });
  if (last[0] === NEWLINE) return;
  for await (const line of readLinesBackward(path, { end: size })) {
    const entry = parseRecordLine(path, { ...line, text: line.text, line: 0 });
    if (entry.record) {
      await writeAll(file, new Uint8Array([NEWLINE]));
      return;
    }
    // The line's exact bytes, a `\r` the reader strips included.
    const bytes = await readRange(file, { start: line.start, end: size });
    await quarantineLines(path, [{ line: undefined, kind: "torn_tail", start: line.start, bytes }]);
    await file.truncate(line.start);
    return;
  }
}
