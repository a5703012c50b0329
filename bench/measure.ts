/**
 * One benchmark measurement, run in a child process of its own so its peak memory is its
 * own: `deno run -A --v8-flags=--expose-gc bench/measure.ts '<task JSON>'` prints one JSON
 * line with the timings (ms) and the peak RSS of the measured iterations.
 *
 * @module
 */
import process from "node:process";
import { limitKeepHistory, limitParse, naiveFind, naiveList, naiveResume } from "./baselines.ts";
import { normalizeHistory, readRecords } from "../src/history/mod.ts";
import type { ResponseItem } from "../src/record/mod.ts";
import { replayRecord } from "../src/history/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";
import { findSession, listSessions, SessionWriter } from "../src/store/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";

/** What a child is asked to measure. */
export type MeasureTask =
  | { kind: "noop" }
  | { kind: "resume"; root: string; id: string }
  | { kind: "resume_full"; path: string }
  | { kind: "naive" | "limit" | "limit_keep"; path: string }
  | { kind: "find" | "find_naive"; root: string; ids: string[] }
  | { kind: "list" | "list_naive"; root: string }
  | { kind: "inspect"; path: string }
  | { kind: "append"; paths: string[] };

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

/** Counts opens, bytes read and directory listings, by wrapping the Deno calls that do them. */
function instrumentIo() {
  const counts = { filesOpened: 0, bytesRead: 0, dirsListed: 0 };
  const deno = Deno as unknown as Record<string, unknown>;
  const open = Deno.open;
  deno.open = (...args: Parameters<typeof Deno.open>) => {
    counts.filesOpened++;
    return open(...args);
  };
  const readFile = Deno.readFile;
  deno.readFile = async (...args: Parameters<typeof Deno.readFile>) => {
    counts.filesOpened++;
    const bytes = await readFile(...args);
    counts.bytesRead += bytes.length;
    return bytes;
  };
  const readTextFile = Deno.readTextFile;
  deno.readTextFile = async (...args: Parameters<typeof Deno.readTextFile>) => {
    counts.filesOpened++;
    const text = await readTextFile(...args);
    counts.bytesRead += new TextEncoder().encode(text).length;
    return text;
  };
  const readDir = Deno.readDir;
  deno.readDir = (...args: Parameters<typeof Deno.readDir>) => {
    counts.dirsListed++;
    return readDir(...args);
  };
  const read = Deno.FsFile.prototype.read;
  Deno.FsFile.prototype.read = async function (this: Deno.FsFile, buffer: Uint8Array) {
    const n = await read.call(this, buffer);
    if (n !== null) counts.bytesRead += n;
    return n;
  };
  return {
    take() {
      const taken = { ...counts };
      counts.filesOpened = counts.bytesRead = counts.dirsListed = 0;
      return taken;
    },
  };
}

/** The forward full replay (every line parsed and validated), then normalization. */
async function resumeFull(path: string): Promise<ResponseItem[]> {
  const replayed: ResponseItem[] = [];
  for await (const entry of readRecords(path)) {
    if (entry.record) replayRecord(replayed, entry.record);
  }
  return normalizeHistory(replayed).history;
}

/** Runs `task` once (or once per id); returns one sample per operation and a check value. */
async function runOnce(
  task: MeasureTask,
  iteration: number,
): Promise<{ samples: number[]; check: number | string }> {
  const timed = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
    const start = performance.now();
    const value = await fn();
    return [performance.now() - start, value];
  };
  switch (task.kind) {
    case "noop": {
      // The parent may not read /proc; this child may, so it names the CPU.
      let cpu = "unknown";
      try {
        const info = await Deno.readTextFile("/proc/cpuinfo");
        cpu = /^model name\s*:\s*(.+)$/m.exec(info)?.[1]?.trim() ?? cpu;
      } catch {
        // Not Linux: the model stays unknown.
      }
      return { samples: [0], check: cpu };
    }
    case "resume": {
      const [ms, resumed] = await timed(() => resumeSession(task.id, { root: task.root }));
      return { samples: [ms], check: resumed.history.length };
    }
    case "resume_full": {
      const [ms, history] = await timed(() => resumeFull(task.path));
      return { samples: [ms], check: history.length };
    }
    case "naive": {
      const [ms, resumed] = await timed(() => naiveResume(task.path));
      return { samples: [ms], check: resumed.history.length };
    }
    case "limit": {
      const [ms, lines] = await timed(() => limitParse(task.path));
      return { samples: [ms], check: lines };
    }
    case "limit_keep": {
      const [ms, history] = await timed(() => limitKeepHistory(task.path));
      return { samples: [ms], check: history.length };
    }
    case "find": {
      const samples: number[] = [];
      let check = "";
      for (const id of task.ids) {
        const [ms, location] = await timed(() => findSession(task.root, id));
        samples.push(ms);
        check = location.id;
      }
      return { samples, check };
    }
    case "find_naive": {
      // One lookup per iteration: each reads the first line of every file.
      const id = task.ids[iteration % task.ids.length]!;
      const [ms, path] = await timed(() => naiveFind(task.root, id));
      return { samples: [ms], check: path.includes(id) ? id : "mismatch" };
    }
    case "list": {
      const [ms, listed] = await timed(() => listSessions(task.root, { limit: 25 }));
      return { samples: [ms], check: listed.sessions.map((s) => s.id).join(",") };
    }
    case "list_naive": {
      const [ms, listed] = await timed(() => naiveList(task.root, 25));
      return { samples: [ms], check: listed.map((s) => s.id).join(",") };
    }
    case "inspect": {
      // Imported here, so the other measurements do not depend on the inspector. What
      // `inspect --json` does: the report without per-line entries, serialized in pieces.
      const { inspectSession, reportJsonPieces } = await import("../src/inspect/mod.ts");
      const [ms, chars] = await timed(async () => {
        let chars = 0;
        for (const piece of reportJsonPieces(await inspectSession(task.path))) {
          chars += piece.length;
        }
        return chars;
      });
      return { samples: [ms], check: chars };
    }
    case "append": {
      // One append to each file in turn, the order swapped every iteration, so both see the
      // same machine: samples are [paths[0], paths[1], ...] per iteration.
      const record = iteration % 2 === 0
        ? makeRecord("run_finished", { runId: "bench", outcome: "succeeded", rounds: 1 })
        : responseItemRecord({ type: "message", role: "user", content: "one more record" });
      const samples: number[] = task.paths.map(() => 0);
      const order = task.paths.map((_, index) => index);
      if (iteration % 2 === 1) order.reverse();
      for (const index of order) {
        const path = task.paths[index]!;
        const [ms] = await timed(async () => {
          const writer = await SessionWriter.open(path);
          try {
            await writer.append([record]);
          } finally {
            writer.close();
          }
        });
        samples[index] = ms;
      }
      return { samples, check: (await Deno.stat(task.paths[0]!)).size };
    }
  }
}

/** Runs a request: warm-up runs, then the measured ones with the peak mark reset before them. */
export async function measure(request: MeasureRequest): Promise<MeasureResult> {
  const io = request.task.kind.startsWith("list") || request.task.kind.startsWith("find")
    ? instrumentIo()
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
  for (let i = 0; i < request.iterations; i++) {
    const cpu = process.cpuUsage();
    const once = await runOnce(request.task, request.warmup + i);
    const used = process.cpuUsage(cpu);
    samples.push(...once.samples);
    const cpuMs = (used.user + used.system) / 1000 / once.samples.length;
    for (const _ of once.samples) cpuSamples.push(cpuMs);
    check = once.check;
    if (io && i === 0) ioCounts = io.take();
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
  return { samples, cpuSamples, peakRss, rssBefore, check, ...(ioCounts ? { io: ioCounts } : {}) };
}

if (import.meta.main) {
  const request = JSON.parse(Deno.args[0] ?? "") as MeasureRequest;
  console.log(JSON.stringify(await measure(request)));
}
