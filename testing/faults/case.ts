/**
 * One case of the fault-injection suite, and the matrix of them: a child runs the scenario
 * and kills itself at one slot (and, when the kill left calls without an output, a second
 * child resumes and is killed at its turn start, where the synthesized outputs are appended);
 * then two resumes run in this process on the embedded model, every request body recorded; then
 * the checks of `checks.ts` count what was lost, changed or sent unpaired.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { collectRecords } from "../../src/history/mod.ts";
import type { WireApi } from "../../src/record/mod.ts";
import { resumeSession } from "../../src/resume/mod.ts";
import { connectModel, createCompactor, type RunEvent, runTurn } from "../../src/runtime/mod.ts";
import { walkSessions } from "../../src/store/mod.ts";
import { readSidecar } from "../sidecar.ts";
import type { ChildSpec, JournalEntry, KillMoment } from "./child.ts";
import {
  changedBytes,
  completeLines,
  type FaultCounts,
  looksLikeRecord,
  missingLines,
  pairingFaults,
  zeroCounts,
} from "./checks.ts";
import {
  type ModelAddress,
  runScenario,
  SCENARIO_MESSAGES,
  type Slot,
  writeWorkspace,
} from "./scenario.ts";

const CHILD_PATH = fileURLToPath(new URL("./child.ts", import.meta.url));
const CONFIG_PATH = fileURLToPath(new URL("../../deno.json", import.meta.url));

/** The compaction threshold when compaction is on: low, so every round checkpoints. */
export const LOW_COMPACT_THRESHOLD = 1;

/** A wire API and whether compaction is on. */
export interface FaultConfig {
  wireApi: WireApi;
  compaction: boolean;
}

/** One kill (and maybe a second one, of the first resume) and its checks. */
export interface FaultCase extends FaultConfig {
  /** The slot of the scenario to die at, and how. */
  kill: { slot: number; at: KillMoment };
  /** What the slot is, for the report. */
  point: string;
  /** Kill the first resume at its turn start this way, when it synthesizes outputs. */
  resumeKill?: KillMoment | undefined;
}

/** What one case found. */
export interface CaseResult {
  /** `responses/compaction turn 1 model_output#3 after`. */
  label: string;
  counts: FaultCounts;
  /** What went wrong, when a count is not 0. */
  notes: string[];
}

function threshold(config: FaultConfig): number | null {
  return config.compaction ? LOW_COMPACT_THRESHOLD : null;
}

/** The slots of the scenario for `config`, found by running it whole in a temp folder. */
export async function enumerateSlots(model: ModelAddress, config: FaultConfig): Promise<Slot[]> {
  const base = await Deno.makeTempDir({ prefix: "turnlog-faults-" });
  try {
    await writeWorkspace(join(base, "workspace"));
    const slots: Slot[] = [];
    await runScenario({
      sessionsDir: join(base, "sessions"),
      workspace: join(base, "workspace"),
      model,
      wireApi: config.wireApi,
      compactThreshold: threshold(config),
      messages: [...SCENARIO_MESSAGES],
    }, (slot, phase) => {
      if (phase !== "after") slots.push(slot);
    });
    return slots;
  } finally {
    await Deno.remove(base, { recursive: true });
  }
}

/** The moments each slot is killed at: a running tool once, an append four ways. */
export function killMoments(slot: Slot): KillMoment[] {
  return slot.point === "tool_running" ? ["during"] : ["before", "after", "torn", "torn_newline"];
}

/** Every case for `config`: each slot at each of its moments. */
export function casesFor(config: FaultConfig, slots: readonly Slot[]): FaultCase[] {
  const resumeMoments: KillMoment[] = ["before", "after", "torn", "torn_newline"];
  // The first resume's kill moment turns over from case to case, so each is used.
  return slots
    .flatMap((slot) => killMoments(slot).map((at) => ({ slot, at })))
    .map(({ slot, at }, i) => ({
      ...config,
      kill: { slot: slot.index, at },
      point: `turn ${slot.turn} ${slot.point}#${slot.index}`,
      resumeKill: resumeMoments[i % resumeMoments.length],
    }));
}

/** The case's label. */
export function caseLabel(c: FaultCase): string {
  const config = `${c.wireApi}/${c.compaction ? "compaction" : "no-compaction"}`;
  return `${config} ${c.point} ${c.kill.at}`;
}

async function runChild(spec: ChildSpec): Promise<void> {
  const { code, signal, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG_PATH}`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      CHILD_PATH,
      JSON.stringify(spec),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (signal === "SIGKILL") return;
  const text = new TextDecoder().decode(stderr).trim();
  throw new Error(`The child was not killed (exit ${code}, signal ${signal}): ${text}`);
}

async function onlySession(root: string): Promise<{ id: string; path: string }> {
  const found = await Array.fromAsync(walkSessions(root));
  if (found.length !== 1) throw new Error(`Expected one session in ${root}, found ${found.length}`);
  return found[0]!;
}

async function readJournal(path: string): Promise<JournalEntry[]> {
  try {
    const text = await Deno.readTextFile(path);
    return text.split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** Runs one case: the kill(s), two resumes, the checks. */
export async function runFaultCase(model: ModelAddress, c: FaultCase): Promise<CaseResult> {
  const base = await Deno.makeTempDir({ prefix: "turnlog-faults-" });
  const counts = zeroCounts();
  const notes: string[] = [];
  try {
    const sessionsDir = join(base, "sessions");
    const workspace = join(base, "workspace");
    const journal = join(base, "journal.jsonl");
    await writeWorkspace(workspace);
    const scenario = {
      sessionsDir,
      workspace,
      model,
      wireApi: c.wireApi,
      compactThreshold: threshold(c),
      journal,
    };
    await runChild({ ...scenario, messages: [...SCENARIO_MESSAGES], kill: c.kill });
    counts.pointsKilled++;
    const { id, path } = await onlySession(sessionsDir);
    const snapshots = [await Deno.readFile(path)];
    if (c.resumeKill && (await resumeSession(id, { root: sessionsDir })).synthesizedItems.length) {
      await runChild({
        ...scenario,
        messages: ["continue"],
        sessionId: id,
        kill: { slot: 0, at: c.resumeKill },
      });
      counts.pointsKilled++;
      counts.resumesKilled++;
      notes.push(`(the first resume was killed too: turn_start ${c.resumeKill})`);
      snapshots.push(await Deno.readFile(path));
    }
    const sent: unknown[] = [];
    await using connection = await connectModel({
      ...model,
      fetch: (input, init) => {
        if (typeof init?.body === "string") sent.push(JSON.parse(init.body));
        return fetch(input, init);
      },
    });
    const compactor = c.compaction
      ? createCompactor({ threshold: LOW_COMPACT_THRESHOLD })
      : undefined;
    for (const message of ["continue", "what did I ask so far?"]) {
      const events: RunEvent[] = await Array.fromAsync(
        runTurn({ message, connection, sessionsDir, workspace, sessionId: id, compactor }),
      );
      const last = events.at(-1);
      if (last?.type !== "run_succeeded") {
        counts.resumesFailed++;
        notes.push(`resume "${message}" ended with ${JSON.stringify(last)}`);
      }
      snapshots.push(await Deno.readFile(path));
    }
    const evidence = { snapshots, journal: await readJournal(journal), sent };
    await check(path, evidence, { counts, notes });
  } finally {
    await Deno.remove(base, { recursive: true });
  }
  return { label: caseLabel(c), counts, notes };
}

/** What a case saw: the file after each step, the child's journal, the requests sent. */
interface Evidence {
  snapshots: readonly Uint8Array[];
  journal: readonly JournalEntry[];
  sent: readonly unknown[];
}

/** Counts what the evidence shows into `into`. */
async function check(
  path: string,
  evidence: Evidence,
  into: { counts: FaultCounts; notes: string[] },
): Promise<void> {
  const { snapshots, journal, sent } = evidence;
  const { counts, notes } = into;
  const sidecar = await readSidecar(path);
  for (let i = 1; i < snapshots.length; i++) {
    const { changed, notes: more } = changedBytes(snapshots[i - 1]!, snapshots[i]!, { sidecar });
    counts.bytesChanged += changed;
    notes.push(...more.map((note) => `step ${i}: ${note}`));
  }
  const final = snapshots.at(-1)!;
  const finalLines = new Set(completeLines(final));
  const expected = new Set([
    ...snapshots.slice(0, -1).flatMap((bytes) => completeLines(bytes).filter(looksLikeRecord)),
    ...journal.flatMap((entry) => entry.text.split("\n").filter((line) => line !== "")),
  ]);
  const lost = missingLines([...expected], finalLines);
  counts.recordsLost += lost.length;
  if (lost.length > 0) notes.push(`lost: ${lost.map((line) => line.slice(0, 80)).join(" | ")}`);
  const pairing = pairingFaults(sent);
  counts.callsWithoutOutput += pairing.calls;
  counts.outputsWithoutCall += pairing.outputs;
  notes.push(...pairing.notes);
  if (sent.length === 0) {
    counts.resumesFailed++;
    notes.push("the resumes sent no request");
  }
  const { problems } = await collectRecords(path);
  counts.problemsLeft += problems.length;
  notes.push(...problems.map((problem) => problem.message));
}
