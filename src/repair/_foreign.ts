/**
 * Repair of a Codex rollout or a Claude Code transcript in place, in that tool's own shapes,
 * with the guarantees of turnlog's own repair: the plan its format works out from the file is
 * what is done, under the file's lock; every line that leaves or changes is in the sidecar
 * (flushed) first; the file is rewritten through a temp file and an atomic rename; a second
 * repair finds nothing to do. A file that changes while it is repaired (the tool is still
 * writing it) is left as it was.
 *
 * @module
 */
import {
  type ForeignFormat,
  type ForeignInsertedLine,
  planForeignRepair,
  type SessionValidation,
  validateSessionFile,
} from "../formats/mod.ts";
import {
  checkUnchanged,
  type FileEdit,
  type QuarantinedLine,
  quarantinePath,
  quarantineThen,
  rewriteFile,
  SessionWriter,
  stampOf,
} from "../store/mod.ts";
import { endsWithNewline, readKeptLines } from "./_bytes.ts";
import { rewriteCompressed } from "./_compressed.ts";
import { isCompressed } from "../io/mod.ts";
import { isEmptyPlan, methodOf, type MovedLine, type RepairPlan } from "./_plan.ts";

/**
 * Works out the repair of another tool's session file from the file itself: its adapter's
 * check and plan (src/formats), as a repair plan. Reads only.
 */
export async function planForeignFileRepair(
  path: string,
  format: ForeignFormat,
): Promise<RepairPlan> {
  const repair = await planForeignRepair(path, format);
  const moved: MovedLine[] = repair.moved.map((m) => ({ ...m }));
  const only = repair.rewritten.length === 0 && repair.inserted.length === 0;
  const method = only ? methodOf(moved, repair.sizeBytes) : "rewrite";
  return {
    path,
    format,
    sidecar: quarantinePath(path),
    moved,
    method,
    appended: [],
    rewritten: repair.rewritten,
    inserted: repair.inserted,
    findings: repair.findings,
    leftAsIs: repair.leftAsIs,
    refused: null,
  };
}

/** The lines written after a line, one a line. */
function linesOf(inserted: readonly ForeignInsertedLine[]): string {
  return inserted.map((line) => `${line.text}\n`).join("");
}

/**
 * The byte edits that carry out a plan: each moved line replaced by the records written back
 * in its place, each rewritten line by its new text, each synthesized result written after
 * its line (after a line without its newline, a newline first).
 */
export function editsOf(plan: RepairPlan, endsWithNewline: boolean, size: number): FileEdit[] {
  const after = (line: number) => plan.inserted.filter((add) => add.afterLine === line);
  const taken = new Set<number>();
  const edits: FileEdit[] = [];
  for (const m of plan.moved) {
    const adds = after(m.line);
    adds.forEach((add) => taken.add(plan.inserted.indexOf(add)));
    const pieces = m.split ?? [];
    const at = (place: number) => linesOf(adds.filter((add) => add.afterPiece === place));
    let text = at(-1);
    pieces.forEach((piece, place) => {
      text += `${piece.text}\n${at(place)}`;
    });
    text += linesOf(adds.filter((add) => add.afterPiece === null));
    edits.push({ start: m.start, end: m.end, text });
  }
  for (const line of plan.rewritten) {
    const adds = after(line.line);
    adds.forEach((add) => taken.add(plan.inserted.indexOf(add)));
    edits.push({ start: line.start, end: line.end, text: `${line.text}\n${linesOf(adds)}` });
  }
  plan.inserted.forEach((add, at) => {
    if (taken.has(at)) return;
    const newline = add.at === size && !endsWithNewline ? "\n" : "";
    edits.push({ start: add.at, end: add.at, text: newline + linesOf([add]) });
  });
  return edits;
}

/** The original bytes of every line the plan moves or changes, for the sidecar. */
function originals(path: string, plan: RepairPlan): Promise<QuarantinedLine[]> {
  return readKeptLines(path, [...plan.moved, ...plan.rewritten].sort((a, b) => a.start - b.start));
}

async function lastLineEnded(path: string, size: number): Promise<boolean> {
  using file = await Deno.open(path, { read: true });
  return await endsWithNewline(file, size);
}

/** Options of {@linkcode repairForeignFile}. */
export interface RepairForeignOptions {
  /**
   * Called once the plan is worked out under the lock, before anything is written (a test
   * changes the file there, as a tool still writing it would).
   */
  beforeWrite?: (() => Promise<void>) | undefined;
  /**
   * Called once the sidecar holds the lines, before the new file is written (a test appends
   * there, as a tool writing meanwhile would).
   */
  afterSidecar?: (() => Promise<void>) | undefined;
  /** Called after the last check, just before the rename (a test appends there). */
  beforeReplace?: (() => Promise<void>) | undefined;
}

/**
 * Repairs another tool's session file at `path`, holding its lock (the one turnlog's writers
 * take), and does exactly the plan worked out under the lock: the originals of every line it
 * moves or changes go to the sidecar (flushed) first; then the file is rewritten through a temp
 * file and an atomic rename (a cut of the last line too). A refused rewrite takes back what it
 * added to the sidecar. The file's size and modification
 * time are taken before the plan and checked again before the rename; what the tool appends
 * after that check (it takes no lock) lands in the old file, and is put back at the end of
 * the new one.
 *
 * @throws {FileChangedError} when the file changed meanwhile (the tool is still writing it)
 * @throws {SessionInUseError} when a turnlog run holds the file's lock
 */
export async function repairForeignFile(
  path: string,
  format: ForeignFormat,
  options: RepairForeignOptions = {},
): Promise<{ plan: RepairPlan; validation: SessionValidation }> {
  let plan = await planForeignFileRepair(path, format);
  if (!isEmptyPlan(plan)) {
    const writer = await SessionWriter.open(path, { seal: false });
    try {
      const stamp = stampOf(await Deno.stat(path));
      plan = await planForeignFileRepair(path, format);
      if (!isEmptyPlan(plan)) {
        await options.beforeWrite?.();
        await checkUnchanged(path, stamp);
        if (isCompressed(path)) {
          const done = plan;
          await rewriteCompressed(path, done, stamp, (ended, size) => editsOf(done, ended, size));
          return { plan, validation: await validateSessionFile(path, format) };
        }
        // Even a cut is a rewrite here: the tool appends without a lock, and only a rename
        // leaves what it wrote meanwhile in the old file, to be put back.
        const newline = await lastLineEnded(path, stamp.size);
        const edits = editsOf(plan, newline, stamp.size);
        const replace = { unchanged: stamp, putBack: true, beforeRename: options.beforeReplace };
        // A refusal (the tool wrote meanwhile) takes the sidecar's new lines back with it.
        await quarantineThen(path, await originals(path, plan), async () => {
          await options.afterSidecar?.();
          (await rewriteFile(path, edits, replace)).close();
        });
      }
    } finally {
      writer.close();
    }
  }
  return { plan, validation: await validateSessionFile(path, format) };
}
