/**
 * What the fault-injection suite checks after a kill and the resumes that follow it: that the
 * file only grew (a torn tail excepted, which the sidecar must keep byte for byte), that every
 * record complete on disk or committed before the kill is still there, and that every request
 * sent paired its calls under the rules of both wire APIs.
 *
 * @module
 */
import { checkPairing, requestPairingItems } from "../pairing.ts";
import { sameBytes, type SidecarEntry } from "../sidecar.ts";

/** The suite's counts; every one but the kills must be 0. */
export interface FaultCounts {
  /** Kills done (a case that also kills its first resume counts two). */
  pointsKilled: number;
  /** Of those, first resumes killed at their turn start (where they synthesize outputs). */
  resumesKilled: number;
  /** Records complete on disk, or committed, before a kill that are not in the final file. */
  recordsLost: number;
  /** Calls a request sent without their output right after their block. */
  callsWithoutOutput: number;
  /** Outputs a request sent that answer no call of the block just before them. */
  outputsWithoutCall: number;
  /** Bytes of a file before a kill or a resume that are not in the file after it (a torn tail counts unless the sidecar keeps it). */
  bytesChanged: number;
  /** Resumes that did not end in `run_succeeded`. */
  resumesFailed: number;
  /** Lines of the final file that are not valid records. */
  problemsLeft: number;
}

const KILL_COUNTS = new Set(["pointsKilled", "resumesKilled"]);

/** All counts at zero. */
export function zeroCounts(): FaultCounts {
  return {
    pointsKilled: 0,
    resumesKilled: 0,
    recordsLost: 0,
    callsWithoutOutput: 0,
    outputsWithoutCall: 0,
    bytesChanged: 0,
    resumesFailed: 0,
    problemsLeft: 0,
  };
}

/** Adds `more` into `total`. */
export function addCounts(total: FaultCounts, more: FaultCounts): void {
  for (const key of Object.keys(total) as (keyof FaultCounts)[]) total[key] += more[key];
}

/** The counts that must be 0 and are not, as `name=value` texts. */
export function badCounts(counts: FaultCounts): string[] {
  return Object.entries(counts)
    .filter(([key, value]) => !KILL_COUNTS.has(key) && value !== 0)
    .map(([key, value]) => `${key}=${value}`);
}

/**
 * The bytes of `before` that `after` does not keep: the complete lines must be a prefix of
 * `after`; a torn tail (bytes after the last newline) must either continue in `after` with a
 * newline (a complete record sealed) or be kept whole by a sidecar entry from its offset.
 */
export function changedBytes(
  before: Uint8Array,
  after: Uint8Array,
  options: { sidecar: readonly SidecarEntry[] },
): { changed: number; notes: string[] } {
  const { sidecar } = options;
  const complete = before.lastIndexOf(10) + 1;
  let changed = 0;
  for (let i = 0; i < complete; i++) if (after[i] !== before[i]) changed++;
  const notes = changed === 0 ? [] : [`${changed} of the first ${complete} bytes changed`];
  const tail = before.subarray(complete);
  if (tail.length === 0) return { changed, notes };
  const continued = sameBytes(after.subarray(complete, complete + tail.length), tail) &&
    after[complete + tail.length] === 10;
  const kept = sidecar.some((entry) => entry.start === complete && sameBytes(entry.bytes, tail));
  if (!continued && !kept) {
    changed += tail.length;
    notes.push(`the torn tail of ${tail.length} bytes at byte ${complete} is lost`);
  }
  return { changed, notes };
}

/** The complete lines of a file's bytes, as text. */
export function completeLines(bytes: Uint8Array): string[] {
  const complete = bytes.lastIndexOf(10) + 1;
  const text = new TextDecoder().decode(bytes.subarray(0, complete));
  return text.split("\n").slice(0, -1);
}

/** Whether a line is a JSON object with a record type (a record, for the lost-records count). */
export function looksLikeRecord(line: string): boolean {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && typeof value.type === "string";
  } catch {
    return false;
  }
}

/** The lines of `expected` that are not lines of `final`. */
export function missingLines(expected: readonly string[], final: ReadonlySet<string>): string[] {
  return expected.filter((line) => !final.has(line));
}

/** Pairing faults over request bodies: calls without an output, outputs without a call. */
export function pairingFaults(bodies: readonly unknown[]): {
  calls: number;
  outputs: number;
  notes: string[];
} {
  let calls = 0;
  let outputs = 0;
  const notes: string[] = [];
  for (const [index, body] of bodies.entries()) {
    const faults = checkPairing(requestPairingItems(body));
    calls += faults.unansweredCalls.length;
    outputs += faults.strayOutputs.length;
    if (faults.unansweredCalls.length + faults.strayOutputs.length > 0) {
      notes.push(
        `request ${index}: calls without output ${faults.unansweredCalls.join(",") || "-"}, ` +
          `outputs without call ${faults.strayOutputs.join(",") || "-"}`,
      );
    }
  }
  return { calls, outputs, notes };
}
