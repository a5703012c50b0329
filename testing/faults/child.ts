/**
 * The fault-injection suite's child: runs the scenario's turns on the embedded model and kills
 * itself with SIGKILL at one numbered slot, so the kill point is chosen, not timed. Its one
 * argument is a JSON {@linkcode ChildSpec}. Every append that completes is written to the
 * journal first, so the suite knows which records were committed before the kill. Exits 3 if
 * the scenario ends before the slot.
 *
 * A torn kill writes part of the append's exact bytes (those `encodeRecords` gives, as the
 * writer would) to the session file before the kill: `torn` cuts in the middle (inside a
 * multi-byte character when the second half has one), `torn_newline` leaves out only the final
 * newline.
 *
 * @module
 */
import { encodeRecords } from "../../src/record/mod.ts";
import type { CommitDetail } from "../../src/store/mod.ts";
import { runScenario, type ScenarioSpec, type Slot } from "./scenario.ts";

/** When, at its slot, the child dies. */
export type KillMoment = "before" | "after" | "torn" | "torn_newline" | "during";

/** What the child is told. */
export interface ChildSpec extends ScenarioSpec {
  /** The slot to die at and how. */
  kill: { slot: number; at: KillMoment };
  /** A file to append one JSON line per completed append to. */
  journal: string;
}

/** One completed append, as the journal keeps it. */
export interface JournalEntry {
  slot: number;
  point: string;
  /** The exact text appended (whole lines). */
  text: string;
}

/** Where a torn write cuts `bytes`: in the middle, inside a multi-byte character if it can. */
export function tornCut(bytes: Uint8Array): number {
  const middle = Math.floor(bytes.length / 2);
  for (let i = Math.max(1, middle); i < bytes.length; i++) {
    // A lead byte of a multi-byte character: cut just after it.
    if (bytes[i]! >= 0xc0) return i + 1;
  }
  return Math.max(1, middle);
}

function die(): Promise<never> {
  Deno.kill(Deno.pid, "SIGKILL");
  return new Promise(() => {});
}

async function tornWrite(detail: CommitDetail, newline: boolean): Promise<void> {
  const bytes = encodeRecords(detail.records);
  const cut = newline ? bytes.length - 1 : tornCut(bytes);
  using file = await Deno.open(detail.path, { append: true });
  let written = 0;
  while (written < cut) written += await file.write(bytes.subarray(written, cut));
}

async function main(spec: ChildSpec): Promise<void> {
  const { slot: target, at } = spec.kill;
  const journal = (slot: Slot, detail: CommitDetail) => {
    const text = new TextDecoder().decode(encodeRecords(detail.records));
    const entry: JournalEntry = { slot: slot.index, point: slot.point, text };
    Deno.writeTextFileSync(spec.journal, JSON.stringify(entry) + "\n", { append: true });
  };
  await runScenario(spec, async (slot, phase, detail) => {
    if (phase === "after" && detail) journal(slot, detail);
    if (slot.index !== target) return;
    if (phase === "during" && at === "during") await die();
    if (phase === "after" && at === "after") await die();
    if (phase !== "before" || !detail) return;
    if (at === "before") await die();
    if (at === "torn" || at === "torn_newline") {
      await tornWrite(detail, at === "torn_newline");
      await die();
    }
  });
  console.error(`The scenario ended before slot ${target} (${at})`);
  Deno.exit(3);
}

if (import.meta.main) await main(JSON.parse(Deno.args[0] ?? "{}"));
