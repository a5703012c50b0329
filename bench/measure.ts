/**
 * One benchmark measurement, run in a child process of its own so its peak memory is its
 * own: `deno run -A --v8-flags=--expose-gc bench/measure.ts '<task JSON>'` prints one JSON
 * line with the timings (ms) and the peak RSS of the measured iterations.
 *
 * @module
 */
import { countIo } from "../testing/io_counter.ts";
import process from "node:process";
import { limitKeepHistory, limitParse, naiveFind, naiveList, naiveResume } from "./baselines.ts";
import { forEachRecord, normalizeHistory } from "../src/history/mod.ts";
import type { ResponseItem } from "../src/record/mod.ts";
import { replayRecord } from "../src/history/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";
import { findSession, listSessions, SessionWriter } from "../src/store/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { type PeerOnce, type PeerTask, runPeerTask } from "./measure_peers.ts";
import { closeStoreTasks, runStoreTask, type StoreTask } from "./store_tasks.ts";
import { type ArchiveTask, runArchiveTask } from "./archive_tasks.ts";

/** What a child is asked to measure. */
export type MeasureTask =
  | { kind: "noop" }
  | { kind: "resume"; root: string; id: string }
  | { kind: "resume_full"; path: string }
  | { kind: "naive" | "limit" | "limit_keep"; path: string }
  | { kind: "find" | "find_naive"; root: string; ids: string[] }
  | { kind: "list" | "list_naive"; root: string }
  | { kind: "inspect" | "inspect_text"; path: string }
  | { kind: "append"; paths: string[] }
  | PeerTask
  | StoreTask
  | ArchiveTask;

/** A task with how often to run it. */
export interface MeasureRequest {
  task: MeasureTask;
  /** Unmeasured runs first, so the code is compiled by the time it is measured. */
  warmup: number;
  iterations: number;
  /**
   * What the warm-up runs do instead of `task`: the same kind of work on a small file, so a
   * big file's single measured run is not its code's first (cold, unoptimized) run.
   */
  warmupTask?: MeasureTask;
}

/** What a child prints. */
export interface MeasureResult {
  /** Milliseconds per measured operation (wall clock). */
  samples: number[];
  /** CPU milliseconds (all threads, user + system) per measured operation. */
  cpuSamples: number[];
  /** Peak resident memory (VmHWM) over the measured iterations, in bytes. */
  peakRss: number;
  /** Resident memory just before the measured iterations, in bytes. */
  rssBefore: number;
  /** A value derived from the result, so the work cannot be skipped and can be checked. */
  check: number | string;
  /** Files opened, bytes read and folders listed by one measured operation (I/O tasks). */
  io?: { filesOpened: number; bytesRead: number; dirsListed: number };
  /**
   * True when what was measured is a process of its own (a command, a server): `peakRss` and
   * the CPU samples are that process's, and `rssBefore` is 0.
   */
  whole?: boolean;
}

const gc = (globalThis as { gc?: () => void }).gc;

function statusKb(field: string): number {
  const status = Deno.readTextFileSync("/proc/self/status");
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
  return match ? Number(match[1]) * 1024 : 0;
}

/** Resets the kernel's peak-RSS mark to the current RSS (Linux 4.0+). */
function resetPeak(): boolean {
  try {
    Deno.writeTextFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** The forward full replay (every line parsed and validated), then normalization. */
async function resumeFull(path: string): Promise<ResponseItem[]> {
  const replayed: ResponseItem[] = [];
  await forEachRecord(path, (entry) => {
    if (entry.record) replayRecord(replayed, entry.record);
  });
  return normalizeHistory(replayed).history;
}

type Once = PeerOnce;

async function timed<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
}

/** One timed operation: its time is the sample, what it returns the check. */
async function single(fn: () => Promise<number | string>): Promise<Once> {
  const [ms, check] = await timed(fn);
  return { samples: [ms], check };
}

/** The child names the CPU (the parent may not read /proc). */
async function cpuModel(): Promise<Once> {
  let cpu = "unknown";
  try {
    const info = await Deno.readTextFile("/proc/cpuinfo");
    cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
  } catch {
    // Not Linux: the model stays unknown.
  }
  return { samples: [0], check: cpu };
}

/** One sample per lookup. */
async function findEach(task: { root: string; ids: string[] }): Promise<Once> {
  const samples: number[] = [];
  let check = "";
  for (const id of task.ids) {
    const [ms, location] = await timed(() => findSession(task.root, id));
    samples.push(ms);
    check = location.id;
  }
  return { samples, check };
}

/** What `inspect --json` does: the report without per-line entries, serialized in pieces. */
async function inspectJson(path: string): Promise<number> {
  // Imported here, so the other measurements do not depend on the inspector.
  const { inspectSession, reportJsonPieces } = await import("../src/inspect/mod.ts");
  let chars = 0;
  for (const piece of reportJsonPieces(await inspectSession(path))) chars += piece.length;
  return chars;
}

/** What `inspect` (the text view) does: each turn rendered as it is read; returns characters. */
async function inspectText(path: string): Promise<number> {
  const { writeReportText } = await import("../src/inspect/mod.ts");
  let chars = 0;
  await writeReportText(path, { render: { color: false }, write: (text) => chars += text.length });
  return chars;
}

/**
 * One append to each file in turn, the order swapped every iteration, so both see the same
 * machine: samples are [paths[0], paths[1], ...] per iteration.
 */
async function appendEach(task: { paths: string[] }, iteration: number): Promise<Once> {
  const record = iteration % 2 === 0
    ? makeRecord("run_finished", { runId: "bench", outcome: "succeeded", rounds: 1 })
    : responseItemRecord({ type: "message", role: "user", content: "one more record" });
  const samples: number[] = task.paths.map(() => 0);
  const order = task.paths.map((_, index) => index);
  if (iteration % 2 === 1) order.reverse();
  for (const index of order) {
    const [ms] = await timed(async () => {
      using writer = await SessionWriter.open(task.paths[index]!);
      await writer.append([record]);
    });
    samples[index] = ms;
  }
  return { samples, check: (await Deno.stat(task.paths[0]!)).size };
}

/** Runs `task` once (or once per id); returns one sample per operation and a check value. */
function runOnce(task: MeasureTask, iteration: number): Promise<Once> {
  switch (task.kind) {
    case "noop":
      return cpuModel();
    case "resume":
      return single(async () => (await resumeSession(task.id, { root: task.root })).history.length);
    case "resume_full":
      return single(async () => (await resumeFull(task.path)).length);
    case "naive":
      return single(async () => (await naiveResume(task.path)).history.length);
    case "limit":
      return single(() => limitParse(task.path));
    case "limit_keep":
      return single(async () => (await limitKeepHistory(task.path)).length);
    case "find":
      return findEach(task);
    case "find_naive": {
      // One lookup per iteration: each reads the first line of every file.
      const id = task.ids[iteration % task.ids.length]!;
      return single(async () => (await naiveFind(task.root, id)).includes(id) ? id : "mismatch");
    }
    case "list":
      return single(async () =>
        (await listSessions(task.root, { limit: 25 })).sessions.map((s) => s.id).join(",")
      );
    case "list_naive":
      return single(async () => (await naiveList(task.root, 25)).map((s) => s.id).join(","));
    case "inspect":
      return single(() => inspectJson(task.path));
    case "inspect_text":
      return single(() => inspectText(task.path));
    case "append":
      return appendEach(task, iteration);
    case "store_resume":
    case "store_append":
      return runStoreTask(task, iteration);
    case "archive_run":
      return runArchiveTask(task);
    default:
      return runPeerTask(task, iteration);
  }
}

/** Runs a request: warm-up runs, then the measured ones with the peak mark reset before them. */
export async function measure(request: MeasureRequest): Promise<MeasureResult> {
  const io = request.task.kind.startsWith("list") || request.task.kind.startsWith("find")
    ? countIo()
    : undefined;
  for (let i = 0; i < request.warmup; i++) await runOnce(request.warmupTask ?? request.task, i);
  gc?.();
  io?.take();
  const rssBefore = statusKb("VmRSS");
  const reset = resetPeak();
  const samples: number[] = [];
  let check: number | string = 0;
  let ioCounts: MeasureResult["io"];
  const cpuSamples: number[] = [];
  let wholePeak: number | undefined;
  for (let i = 0; i < request.iterations; i++) {
    const cpu = process.cpuUsage();
    const once = await runOnce(request.task, request.warmup + i);
    const used = process.cpuUsage(cpu);
    samples.push(...once.samples);
    const cpuMs = once.whole?.cpuMs ?? (used.user + used.system) / 1000 / once.samples.length;
    for (const _ of once.samples) cpuSamples.push(cpuMs);
    if (once.whole) wholePeak = Math.max(wholePeak ?? 0, once.whole.peakRss);
    check = once.check;
    if (io && i === 0) {
      const { filesOpened, bytesRead, dirsListed } = io.take();
      ioCounts = { filesOpened, bytesRead, dirsListed };
    }
    if (i < request.iterations - 1) gc?.();
  }
  const peakRss = reset ? statusKb("VmHWM") : statusKb("VmRSS");
  if (ioCounts && request.task.kind.startsWith("find")) {
    // Per lookup, like the samples.
    const per = request.task.kind === "find" ? samples.length / request.iterations : 1;
    ioCounts = {
      filesOpened: ioCounts.filesOpened / per,
      bytesRead: ioCounts.bytesRead / per,
      dirsListed: ioCounts.dirsListed / per,
    };
  }
  const counted = ioCounts ? { io: ioCounts } : {};
  if (wholePeak !== undefined) {
    return {
      samples,
      cpuSamples,
      peakRss: wholePeak,
      rssBefore: 0,
      check,
      whole: true,
      ...counted,
    };
  }
  return { samples, cpuSamples, peakRss, rssBefore, check, ...counted };
}

if (import.meta.main) {
  const request = JSON.parse(Deno.args[0] ?? "") as MeasureRequest;
  console.log(JSON.stringify(await measure(request)));
  await closeStoreTasks();
}
