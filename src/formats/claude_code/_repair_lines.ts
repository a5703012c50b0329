/**
 * The plan of a Claude Code transcript's repair as it is built (what changes, line by line of
 * the view), and the plan's lines once it is: moved, rewritten, written.
 *
 * @module
 */
import { readRange } from "../../io/mod.ts";
import { isObject, type Json, str } from "../_line.ts";
import type {
  ForeignInsertedLine,
  ForeignMovedLine,
  ForeignRepair,
  ForeignRewrittenLine,
} from "../_repair_types.ts";
import { movedBadLine } from "../_moved.ts";
import type { ClaudeAnalysis } from "./_check.ts";

/** The plan being built: changes by line of the view. */
export class Changes {
  readonly removed = new Map<number, { kind: "orphan_output" | "duplicate_output"; why: string }>();
  readonly parents = new Map<number, string | null>();
  readonly logicalParents = new Map<number, string | null>();
  readonly dropped = new Map<number, Set<number>>();
  readonly inserted: { k: number; callId: string; toolName: string; callK: number; value: Json }[] =
    [];
  readonly leftAsIs: string[] = [];
}

/** The text of a line of the view, read back from the file or the recovered records. */
export function reader(path: string, analysis: ClaudeAnalysis) {
  const decoder = new TextDecoder();
  return async (k: number): Promise<Json> => {
    const piece = analysis.pieces.get(k);
    if (piece !== undefined) return JSON.parse(piece) as Json;
    const info = analysis.infos[k]!;
    using file = await Deno.open(path, { read: true });
    const text = decoder.decode(await readRange(file, info)).replace(/\r?\n$/, "");
    return JSON.parse(text) as Json;
  };
}

/** The line with its changes made, and why it changed. */
function changedLine(
  k: number,
  value: Json,
  changes: Changes,
): { text: string; kind: ForeignRewrittenLine["kind"]; what: string[] } {
  const what: string[] = [];
  let kind: ForeignRewrittenLine["kind"] = "reparented";
  const blocks = changes.dropped.get(k);
  const message = value.message;
  if (blocks && isObject(message) && Array.isArray(message.content)) {
    const taken = message.content.filter((_, at) => blocks.has(at));
    message.content = message.content.filter((_, at) => !blocks.has(at));
    const ids = taken.map((block) => isObject(block) ? str(block, "tool_use_id") : undefined);
    what.push(`its tool_result for ${ids.join(", ")} (no tool_use right before it) taken out`);
    kind = "orphan_output";
  }
  const named = (uuid: string | null) => {
    const result = changes.inserted.find((add) => add.value.uuid === uuid);
    return `${uuid ?? "null"}${result ? ` (the result written for ${result.callId})` : ""}`;
  };
  if (changes.parents.has(k)) {
    const parent = changes.parents.get(k)!;
    what.push(`parentUuid ${value.parentUuid ?? "null"} becomes ${named(parent)}`);
    value.parentUuid = parent;
  }
  if (changes.logicalParents.has(k)) {
    const parent = changes.logicalParents.get(k)!;
    what.push(`logicalParentUuid ${value.logicalParentUuid} becomes ${named(parent)}`);
    value.logicalParentUuid = parent;
  }
  return { text: JSON.stringify(value), kind, what };
}

/** A line of the view as it stands in the file: its number and byte range. */
function spanOf(info: ClaudeAnalysis["infos"][number]) {
  return {
    line: info.line,
    start: info.start,
    end: info.end,
    bytes: info.end - info.start - (info.terminated ? 1 : 0),
  };
}

/** The moved lines: bad lines (records written back), then results taken out. */
function movedLines(path: string, analysis: ClaudeAnalysis, changes: Changes) {
  const { infos } = analysis;
  const moved: ForeignMovedLine[] = analysis.bad.map(movedBadLine);
  const movedAt = (k: number) => moved.find((m) => m.line === infos[k]!.line)!;
  for (const k of [...changes.removed.keys()].sort((a, b) => a - b)) {
    const info = infos[k]!;
    const { kind, why } = changes.removed.get(k)!;
    // A record of a bad line that is taken out is left blank, then out of the records.
    if (info.piece !== null) movedAt(k).split![info.piece] = { type: "", text: "" };
    else {moved.push({
        ...spanOf(info),
        kind,
        message: `${path}:${info.line}: ${why}`,
        split: null,
      });}
  }
  return { moved, movedAt };
}

/** Turns the changes into the plan's lines. */
export async function lay(
  path: string,
  analysis: ClaudeAnalysis,
  changes: Changes,
  read: (k: number) => Promise<Json>,
): Promise<Pick<ForeignRepair, "moved" | "rewritten" | "inserted">> {
  const { infos } = analysis;
  const { moved, movedAt } = movedLines(path, analysis, changes);
  const rewritten: ForeignRewrittenLine[] = [];
  const touched = new Set([
    ...changes.parents.keys(),
    ...changes.logicalParents.keys(),
    ...changes.dropped.keys(),
  ]);
  for (const k of [...touched].sort((a, b) => a - b)) {
    if (changes.removed.has(k)) continue;
    const info = infos[k]!;
    const { text, kind, what } = changedLine(k, await read(k), changes);
    if (info.piece !== null) movedAt(k).split![info.piece]!.text = text;
    else {rewritten.push({
        ...spanOf(info),
        kind,
        message: `${path}:${info.line}: ${what.join("; ")}`,
        text,
      });}
  }
  // A piece's place among the records written back, once the removed ones are left out.
  const placeOf = (k: number): number | null => {
    const piece = infos[k]!.piece;
    if (piece === null) return null;
    return movedAt(k).split!.slice(0, piece + 1).filter((p) => p.text !== "").length - 1;
  };
  const inserted: ForeignInsertedLine[] = changes.inserted.map((add) => ({
    afterLine: infos[add.k]!.line,
    afterPiece: placeOf(add.k),
    at: infos[add.k]!.end,
    callId: add.callId,
    toolName: add.toolName,
    callLine: infos[add.callK]!.line,
    text: JSON.stringify(add.value),
  }));
  for (const m of moved) {
    m.split = m.split?.filter((piece) => piece.text !== "") ?? null;
    if (m.split?.length === 0) m.split = null;
  }
  return { moved: moved.sort((a, b) => a.line - b.line), rewritten, inserted };
}
