/**
 * What a crash, an editor or an older writer leaves in a session file, for the generator's
 * damaged sessions: corrupt and cut-short lines, empty lines, CRLF endings, a torn tail, and
 * checkpoints written without their record count or with an orphan call kept inside.
 *
 * @module
 */
import { compactHistory, makeCheckpoint } from "../../src/compaction/mod.ts";
import {
  type CompactionCheckpoint,
  type ResponseItem,
  responseItemRecord,
} from "../../src/record/mod.ts";
import type { Rng } from "./_rng.ts";

/**
 * The line endings of a file: CRLF in about one damaged file in four, on every other line in
 * half of those.
 */
export function lineEndings(
  rng: Rng,
  damage: boolean,
): { crlf: boolean; ending: (index: number) => string } {
  const crlf = damage && rng.chance(0.25);
  const mixed = crlf && rng.chance(0.5);
  return { crlf, ending: (index) => crlf && (!mixed || index % 2 === 0) ? "\r\n" : "\n" };
}

/**
 * The bad lines a round may leave behind it (often none): a record cut at its payload, a
 * checkpoint line cut short, a record that is JSON but not valid, an empty line. `corrupt`
 * counts the lines that are not records (the empty ones are not problems).
 */
export function damagedLines(
  rng: Rng,
  history: readonly ResponseItem[],
  time: Date,
): { lines: string[]; corrupt: number } {
  const lines: string[] = [];
  if (rng.chance(0.05)) {
    lines.push('{"timestamp":"2026-11-30T09:00:00.000Z","type":"response_item","payload":{');
  }
  if (rng.chance(0.04)) {
    // A checkpoint line cut short in the middle of the file: it must be passed over.
    const full = JSON.stringify(responseItemRecord(
      makeCheckpoint(compactHistory(history, "lost"), { reason: "x", tokensBefore: 1 }),
      time,
    ));
    lines.push(full.slice(0, full.length - 5));
  }
  if (rng.chance(0.03)) {
    lines.push('{"timestamp":"x","type":"turn_context","payload":{"runId":""}}');
  }
  const corrupt = lines.length;
  if (rng.chance(0.05)) lines.push("");
  return { lines, corrupt };
}

/**
 * A checkpoint as an older writer might have left it: one in five without its record count
 * (resume then takes the long way), one in five whose replacement history keeps an orphan
 * call (replay must take it as stored).
 */
export function olderWriterCheckpoint(
  rng: Rng,
  checkpoint: CompactionCheckpoint,
  orphanCallId: string,
): CompactionCheckpoint {
  let payload = checkpoint;
  if (rng.chance(0.2)) {
    const { recordsBefore: _, ...uncounted } = payload;
    payload = uncounted;
  }
  if (rng.chance(0.2)) {
    payload = {
      ...payload,
      replacementHistory: [...payload.replacementHistory, {
        type: "function_call",
        callId: orphanCallId,
        name: "list_dir",
        arguments: "{}",
      }],
    };
  }
  return payload;
}

/**
 * How a damaged file ends: a torn last record (one file in four), or else a valid last line
 * without its final newline (one in ten of the rest), or intact.
 */
export function fileEnd(rng: Rng, damage: boolean): "torn" | "unterminated" | "intact" {
  if (damage && rng.chance(0.25)) return "torn";
  if (damage && rng.chance(0.1)) return "unterminated";
  return "intact";
}

/** The start of a record a crash cut off: a torn tail. */
export const TORN_TAIL =
  '{"timestamp":"2026-11-30T09:00:00.000Z","type":"response_item","payload":{"ty';
