/**
 * The repair plan of a Codex rollout: bad lines to the sidecar (the records they hold written
 * back), an output right after each call that has none (the shape Codex itself gives an
 * interrupted call when it builds a prompt: `function_call_output` or
 * `custom_tool_call_output`, saying `aborted`), each output no call waits for (and each
 * copy of a call still waiting) moved to the sidecar, and the records of a paginated rollout
 * numbered in order again (a record without an ordinal, a repeated one, one that goes back:
 * see `_ordinals.ts`), each changed line's original in the sidecar.
 *
 * @module
 */
import {
  type ForeignInsertedLine,
  type ForeignMovedLine,
  type ForeignRepair,
  type ForeignRewrittenLine,
  INTERRUPTED_RESULT,
} from "../_repair_types.ts";
import { movedBadLine } from "../_moved.ts";
import { readView } from "../_view.ts";
import { analyzeCodex, type CodexAnalysis, codexFindings, strayWords } from "./_check.ts";
import { CODEX_LINES } from "./_lines.ts";
import { Renumbering, withOrdinal } from "./_ordinals.ts";

/** What a synthesized output says: Codex's own word first, then why. */
export const ABORTED_OUTPUT = `aborted: ${INTERRUPTED_RESULT}`;

/**
 * Works out the repair of the Codex rollout at `path` as it is now (up to `sizeBytes`), with
 * what its validator found before.
 */
export async function planCodexRepair(path: string, sizeBytes: number): Promise<ForeignRepair> {
  const analysis: CodexAnalysis = await analyzeCodex(path, sizeBytes);
  const moved: ForeignMovedLine[] = analysis.bad.map(movedBadLine);
  // Pieces are taken out by their place; places shift once one is gone.
  const removedPieces = new Map<number, Set<number>>();
  for (const output of analysis.stray) {
    if (output.piece !== null) {
      const set = removedPieces.get(output.line) ?? new Set();
      removedPieces.set(output.line, set.add(output.piece));
      continue;
    }
    moved.push({
      line: output.line,
      kind: output.kind,
      start: output.start,
      end: output.end,
      bytes: output.end - output.start - (output.terminated ? 1 : 0),
      message: `${path}:${output.line}: ${strayWords(output)}`,
      split: null,
    });
  }
  const placeOf = (line: number, piece: number | null): number | null => {
    if (piece === null) return null;
    const gone = removedPieces.get(line) ?? new Set();
    let place = -1;
    for (let at = 0; at <= piece; at++) if (!gone.has(at)) place++;
    return place;
  };
  const rewritten = analysis.ordinals.length === 0
    ? []
    : await renumbered(path, sizeBytes, new Set(moved.map((m) => m.line)));
  const newOrdinal = new Map(rewritten.map((line) => [line.line, line.ordinal]));
  const inserted: ForeignInsertedLine[] = analysis.unanswered.map(({ call }) => ({
    afterLine: call.line,
    afterPiece: placeOf(call.line, call.piece),
    at: call.end,
    callId: call.callId,
    toolName: call.name,
    callLine: call.line,
    text: JSON.stringify({
      timestamp: call.timestamp,
      // Where the file's records are numbered, Codex 0.169 refuses a last record without one.
      ...(call.ordinal === undefined && !newOrdinal.has(call.line)
        ? {}
        : { ordinal: newOrdinal.get(call.line) ?? call.ordinal }),
      type: "response_item",
      payload: {
        type: call.type === "custom_tool_call" ? "custom_tool_call_output" : "function_call_output",
        call_id: call.callId,
        output: ABORTED_OUTPUT,
      },
    }),
  }));
  for (const m of moved) {
    const gone = removedPieces.get(m.line);
    m.split = m.split?.filter((_, at) => !gone?.has(at)) ?? null;
    if (m.split?.length === 0) m.split = null;
  }
  return {
    format: "codex",
    moved: moved.sort((a, b) => a.line - b.line),
    rewritten: rewritten.map(({ ordinal: _, ...line }) => line),
    inserted,
    leftAsIs: [],
    findings: codexFindings(path, analysis),
  };
}

/**
 * The lines whose ordinal repair changes (see {@linkcode Renumbering}), over the records it
 * keeps: `moved` lines leave the file, and so do the records a bad line held (written back as
 * they are).
 */
async function renumbered(
  path: string,
  sizeBytes: number,
  moved: ReadonlySet<number>,
): Promise<(ForeignRewrittenLine & { ordinal: number })[]> {
  const numbering = new Renumbering();
  const lines: (ForeignRewrittenLine & { ordinal: number })[] = [];
  for await (const item of readView(path, CODEX_LINES, sizeBytes)) {
    const line = item.line;
    if (line === undefined || line.piece !== null || moved.has(line.line)) continue;
    const ordinal = numbering.next(line.value);
    if (ordinal === undefined) continue;
    lines.push({
      line: line.line,
      kind: "renumbered",
      start: line.start,
      end: line.end,
      bytes: line.end - line.start - (line.terminated ? 1 : 0),
      message: `${path}:${line.line}: ordinal ${line.value.ordinal ?? "(none)"} becomes ${ordinal}`,
      text: withOrdinal(line.value, ordinal),
      ordinal,
    });
  }
  return lines;
}
