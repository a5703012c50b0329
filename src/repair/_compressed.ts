/**
 * Repair of a compressed session file (a Codex `.jsonl.zst` rollout): the plan's offsets are
 * in its decompressed bytes, so the file is decompressed, the plan's originals go to the
 * sidecar (flushed) first, the edits are made in the decompressed bytes, and the result is
 * compressed again into a temp file in the same folder, fsynced, and renamed over the
 * original: the file stays compressed, whole or not at all.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { zstdCompressSync } from "node:zlib";
import { openSessionBytes } from "../io/mod.ts";
import {
  checkUnchanged,
  type FileEdit,
  type FileStamp,
  type QuarantinedLine,
  quarantineThen,
} from "../store/mod.ts";
import type { RepairPlan } from "./_plan.ts";

const encoder = new TextEncoder();

/** The decompressed bytes with `edits` (sorted, not overlapping) made. */
function edited(bytes: Uint8Array, edits: readonly FileEdit[]): Uint8Array {
  const parts: Uint8Array[] = [];
  let at = 0;
  for (const edit of [...edits].sort((a, b) => a.start - b.start || a.end - b.end)) {
    parts.push(bytes.subarray(at, edit.start), encoder.encode(edit.text));
    at = edit.end;
  }
  parts.push(bytes.subarray(at));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/**
 * Carries out `plan` on the compressed file at `path` (its lock held by the caller, its stamp
 * taken before the plan): the originals to the sidecar, then the edited bytes compressed into
 * a temp file renamed over it once the file is checked unchanged.
 *
 * @throws {FileChangedError} when the file changed meanwhile
 */
export async function rewriteCompressed(
  path: string,
  plan: RepairPlan,
  stamp: FileStamp,
  editsOf: (endsWithNewline: boolean, size: number) => FileEdit[],
): Promise<void> {
  const bytes = new Uint8Array(await new Response(await openSessionBytes(path)).arrayBuffer());
  const kept: QuarantinedLine[] = [...plan.moved, ...plan.rewritten]
    .sort((a, b) => a.start - b.start)
    .map((m) => ({
      line: m.line,
      kind: m.kind,
      start: m.start,
      bytes: bytes.slice(m.start, m.start + m.bytes),
    }));
  const newline = bytes.length === 0 || bytes[bytes.length - 1] === 10;
  const packed = zstdCompressSync(edited(bytes, editsOf(newline, bytes.length)));
  const temp = join(dirname(path), `.${crypto.randomUUID()}.turnlog-repair.tmp`);
  // A refusal (the file changed meanwhile) takes the sidecar's new lines back with it.
  await quarantineThen(path, kept, async () => {
    try {
      using file = await Deno.open(temp, { write: true, createNew: true });
      let written = 0;
      while (written < packed.length) written += await file.write(packed.subarray(written));
      await file.sync();
      await checkUnchanged(path, stamp);
      await Deno.rename(temp, path);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  });
}
