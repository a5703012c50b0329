/**
 * The properties every damaged session file must keep, checked on one generated session with
 * random damage: no exception but a clear turnlog error escapes inspect, resume, the repair
 * plan or repair; inspect and resume never write; the dry-run plan is what repair does; repair
 * keeps every original byte (in the file or once in the sidecar), is idempotent and leaves a
 * file resume reads without problems; the history sent pairs every call under the rules of
 * both wire APIs; replay from the last checkpoint equals replay from the first line.
 *
 * @module
 */
import fc from "fast-check";
import { dirname } from "node:path";
import { TurnlogError } from "../../src/errors/mod.ts";
import { type InspectReport, inspectSession } from "../../src/inspect/mod.ts";
import { isEmptyPlan, planFileRepair, repairSession } from "../../src/repair/mod.ts";
import type { ResponseItem } from "../../src/record/mod.ts";
import {
  initializeSessionForRun,
  loadSession,
  type ResumedSession,
  resumeSession,
} from "../../src/resume/mod.ts";
import { quarantinePath, sessionFilePath } from "../../src/store/mod.ts";
import { generateSessionText } from "../generate/mod.ts";
import { checkPairing, historyPairingItems } from "../pairing.ts";
import { readSidecar, sameBytes } from "../sidecar.ts";
import { applyAll, type Damage, damageArbitrary, splitLines } from "./damage.ts";

/** A generated session and the damage done to it. */
export interface SessionCase {
  /** The generator's seed. */
  seed: number;
  /** Let the generator add its own damage (corrupt lines, CRLF, torn tails, old checkpoints). */
  generatorDamage: boolean;
  /** Compaction checkpoints after some rounds. */
  checkpoints: boolean;
  /** The damage done to the file's bytes, in order. */
  damages: Damage[];
}

/** An arbitrary {@linkcode SessionCase}: up to four pieces of damage. */
export const sessionCaseArbitrary: fc.Arbitrary<SessionCase> = fc.record({
  seed: fc.integer({ min: 1, max: 0x7fffffff }),
  generatorDamage: fc.boolean(),
  checkpoints: fc.boolean(),
  damages: fc.array(damageArbitrary, { minLength: 0, maxLength: 4 }),
});

/** A property that does not hold. */
export class PropertyViolation extends Error {
  /** A violation whose message names the property and the file. */
  constructor(message: string) {
    super(message);
    this.name = "PropertyViolation";
  }
}

function expect(condition: boolean, message: string): void {
  if (!condition) throw new PropertyViolation(message);
}

/** What an error must look like when a file cannot be a session. */
function expectClearError(what: string, error: unknown): void {
  if (error instanceof PropertyViolation) throw error;
  expect(
    error instanceof TurnlogError,
    `${what} threw ${error instanceof Error ? error.stack : String(error)}`,
  );
  const message = (error as Error).message;
  expect(
    /^(\/|[A-Z])/.test(message) && !/\.$/.test(message),
    `${what}: unclear message ${message}`,
  );
}

async function noThrow<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new PropertyViolation(
      `${what} threw ${error instanceof Error ? error.stack : String(error)}`,
    );
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** A damaged session file written for one case. */
interface CaseFile {
  path: string;
  /** The session's id (from the generator; damage may have changed the one inside). */
  id: string;
  /** The sessions root it is in. */
  root: string;
  /** The bytes written. */
  original: Uint8Array;
  /** Its mtime once written. */
  mtime: Date | null;
}

/** The file's bytes and mtime must be as written, and no sidecar may exist. */
async function expectUntouched(what: string, file: CaseFile): Promise<void> {
  const { path, original: bytes, mtime } = file;
  expect(sameBytes(await Deno.readFile(path), bytes), `${what} changed the file's bytes`);
  expect(
    (await Deno.stat(path)).mtime?.getTime() === mtime?.getTime(),
    `${what} changed its mtime`,
  );
  expect(!(await exists(quarantinePath(path))), `${what} wrote a sidecar`);
}

/** The history must pair every call under both APIs' rules. */
function expectPaired(what: string, history: readonly ResponseItem[]): void {
  const faults = checkPairing(historyPairingItems(history));
  expect(
    faults.unansweredCalls.length === 0 && faults.strayOutputs.length === 0,
    `${what}: the history sent is not paired: ${JSON.stringify(faults)}`,
  );
}

/** Resumes `id`; undefined with a clear turnlog error when the file cannot be a session. */
async function resumeOrRefuse(id: string, root: string): Promise<ResumedSession | undefined> {
  try {
    return await resumeSession(id, { root });
  } catch (error) {
    expectClearError("resumeSession", error);
    return undefined;
  }
}

/** A run on a file resume refuses must fail with a clear turnlog error (and change nothing). */
async function expectRunRefuses(id: string, root: string): Promise<void> {
  let session: Awaited<ReturnType<typeof initializeSessionForRun>> | undefined;
  try {
    session = await initializeSessionForRun({
      message: "go on",
      sessionId: id,
      root,
      systemPrompt: "",
      cwd: root,
      modelProvider: "embedded",
    });
  } catch (error) {
    expectClearError("initializeSessionForRun", error);
    return;
  }
  session.writer.close();
  throw new PropertyViolation("initializeSessionForRun continued a session resume refuses");
}

/**
 * Replay from the last checkpoint must give the history and turn context replay from the first
 * line gives. (Not the record count: the short way takes the count the checkpoint stored and
 * never reads the lines before it, so it cannot see one damaged there.)
 */
async function expectSameReplay(resumed: ResumedSession): Promise<void> {
  const long = await loadSession(resumed.location, { fromCheckpoint: false });
  expect(
    JSON.stringify(long.replayed) === JSON.stringify(resumed.replayed) &&
      JSON.stringify(long.lastTurn) === JSON.stringify(resumed.lastTurn),
    "loadSession: replay from the checkpoint differs from replay from the first line",
  );
}

const latin1 = new TextDecoder("latin1");

/** How often each line (bytes without `\n`) occurs. */
function lineCounts(lines: Iterable<Uint8Array>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) {
    const key = latin1.decode(line.at(-1) === 10 ? line.subarray(0, -1) : line);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** Every original line is still a line of the file or an entry of the sidecar, once each. */
async function expectKept(path: string, original: Uint8Array): Promise<void> {
  const entries = await readSidecar(path);
  const identities = entries.map((entry) => `${entry.start}:${latin1.decode(entry.bytes)}`);
  expect(
    new Set(identities).size === identities.length,
    "repair: the sidecar holds an entry twice",
  );
  const originals = lineCounts(splitLines(original));
  const kept = lineCounts(splitLines(await Deno.readFile(path)));
  for (const entry of entries) {
    const key = latin1.decode(entry.bytes);
    expect(
      originals.has(key),
      `repair: the sidecar holds bytes no original line held: ${key.slice(0, 80)}`,
    );
    kept.set(key, (kept.get(key) ?? 0) + 1);
  }
  for (const [line, count] of originals) {
    expect(
      (kept.get(line) ?? 0) >= count,
      `repair lost an original line (${count} in the file before): ${line.slice(0, 120)}`,
    );
  }
}

/** Repair, then the properties of a repaired (or refused) file. */
async function checkRepair(file: CaseFile, report: InspectReport): Promise<void> {
  const { path, id, root, original } = file;
  const planned = await noThrow("planFileRepair", () => planFileRepair(report));
  const first = await noThrow("repairSession", () => repairSession(path, { root }));
  expect(
    JSON.stringify(first.plan) === JSON.stringify(planned),
    `repairSession did other than its dry run planned: ${JSON.stringify(planned)} then ${
      JSON.stringify(first.plan)
    }`,
  );
  if (first.plan.refused !== null) {
    expect(
      sameBytes(await Deno.readFile(path), original),
      "a refused repair changed the file",
    );
    expect(!(await exists(quarantinePath(path))), "a refused repair wrote a sidecar");
    expect((await resumeOrRefuse(id, root)) === undefined, "resume read a file repair refused");
    return;
  }
  await expectKept(path, original);
  await expectIdempotent(path, root);
  await expectResumable(file, first.after);
}

/** A second repair plans nothing and changes neither the file nor the sidecar. */
async function expectIdempotent(path: string, root: string): Promise<void> {
  const sidecarPath = quarantinePath(path);
  const bytes = await Deno.readFile(path);
  const sidecar = await exists(sidecarPath) ? await Deno.readFile(sidecarPath) : undefined;
  const second = await noThrow("a second repairSession", () => repairSession(path, { root }));
  expect(isEmptyPlan(second.plan), `a second repair planned more: ${JSON.stringify(second.plan)}`);
  expect(sameBytes(await Deno.readFile(path), bytes), "a second repair changed the file");
  expect(
    sidecar === undefined
      ? !(await exists(sidecarPath))
      : sameBytes(await Deno.readFile(sidecarPath), sidecar),
    "a second repair changed the sidecar",
  );
}

/** Resume reads a repaired file without problems, and has nothing to synthesize or drop. */
async function expectResumable(file: CaseFile, after: InspectReport): Promise<void> {
  const resumed = await resumeOrRefuse(file.id, file.root);
  expect(resumed !== undefined, "resume refused a repaired file");
  const { problems, synthesizedItems, droppedItems, history } = resumed!;
  expect(
    problems.length === 0,
    `resume found problems in a repaired file: ${problems.map((p) => p.message).join("; ")}`,
  );
  expect(synthesizedItems.length === 0, "resume synthesized outputs in a repaired file");
  // Only an output inside a checkpoint's replacement history is not a line repair can move.
  const inCheckpoints = after.orphanOutputs.filter((o) => o.inCheckpoint).length;
  expect(
    droppedItems.length === inCheckpoints && after.orphanOutputs.length === inCheckpoints,
    `resume dropped outputs in a repaired file: ${JSON.stringify(after.orphanOutputs)}`,
  );
  expectPaired("resume after repair", history);
}

/** The damaged bytes of a case, with the generated session's id and creation time. */
export function damagedSession(
  c: SessionCase,
): { id: string; createdAt: string; bytes: Uint8Array } {
  const generated = generateSessionText(c.seed, {
    damage: c.generatorDamage,
    checkpoints: c.checkpoints ? 0.4 : 0,
  });
  const bytes = applyAll(new TextEncoder().encode(generated.text), c.damages);
  return { id: generated.id, createdAt: generated.createdAt, bytes };
}

/**
 * Checks every property on one case, in a new folder under `root` (removed afterwards).
 *
 * @throws {PropertyViolation} naming the property that does not hold
 */
export async function checkSessionCase(root: string, c: SessionCase): Promise<void> {
  const { id, createdAt, bytes: original } = damagedSession(c);
  const dir = await Deno.makeTempDir({ dir: root });
  const path = sessionFilePath(dir, id, new Date(createdAt));
  try {
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeFile(path, original);
    const file: CaseFile = { path, id, root: dir, original, mtime: (await Deno.stat(path)).mtime };
    const report = await noThrow("inspectSession", () => inspectSession(path, { root: dir }));
    await expectUntouched("inspectSession", file);
    const resumed = await resumeOrRefuse(id, dir);
    await expectUntouched("resumeSession", file);
    if (resumed) {
      expectPaired("resumeSession", resumed.history);
      await expectSameReplay(resumed);
    } else {
      await expectRunRefuses(id, dir);
      await expectUntouched("a refused run", file);
    }
    await checkRepair(file, report);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
