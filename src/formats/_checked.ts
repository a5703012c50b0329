/**
 * A format's check made by its reader on the way: a reader that reads a whole file knows
 * every line the check needs, so the inspector's check after the read (`validateSessionFile`)
 * takes the findings kept here instead of reading and parsing the file again. One file is
 * kept, the last read whole, and only while it is unchanged (its size and modification time);
 * a check of any other file, or of one that changed, reads it as before.
 *
 * @module
 */
import type { ValidationFinding } from "./_repair_types.ts";

interface Kept {
  format: string;
  path: string;
  sizeBytes: number;
  mtime: number | null;
  findings: ValidationFinding[];
}

let kept: Kept | undefined;

function modified(path: string): number | null | undefined {
  try {
    return Deno.statSync(path).mtime?.getTime() ?? null;
  } catch {
    return undefined;
  }
}

/** Keeps the findings of the check of the file at `path` read whole up to `sizeBytes`. */
export function keepCheck(
  format: string,
  path: string,
  sizeBytes: number,
  findings: ValidationFinding[],
): void {
  const mtime = modified(path);
  kept = mtime === undefined ? undefined : { format, path, sizeBytes, mtime, findings };
}

/**
 * The findings kept for the file at `path` of `sizeBytes`, when it is the one read last and
 * has not changed since; taken once (a second check reads the file).
 */
export function takeCheck(
  format: string,
  path: string,
  sizeBytes: number,
): ValidationFinding[] | undefined {
  const found = kept;
  if (found === undefined) return undefined;
  kept = undefined;
  const same = found.format === format && found.path === path &&
    found.sizeBytes === sizeBytes && found.mtime === modified(path);
  return same ? found.findings : undefined;
}
