/**
 * The benchmark harness (`deno task bench`): generates the sessions once, measures turnlog
 * side by side with the naive way and the limit in one run (each measurement in a child
 * process of its own, the compared variants interleaved round by round so a noisy machine
 * hits them alike), prints a table and writes the figures as JSON.
 *
 * Flags: `--large` adds the 1 GB session; `--sizes 1MB,10MB` replaces the sizes;
 * `--rounds N` child processes per variant; `--store N` sessions in the store;
 * `--out DIR` generated data; `--results FILE` the JSON; `--seed N`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type CachedSession as GeneratedSession,
  ensureSession,
  ensureStore,
  parseSize,
  sizeLabel,
} from "../testing/generate/mod.ts";
import type { MeasureRequest, MeasureResult, MeasureTask } from "./measure.ts";
import { createSession } from "../src/store/mod.ts";

const MB = 1 << 20;

/** What to run. */
export interface BenchOptions {
  sizes: number[];
  rounds: number;
  storeCount: number;
  seed: number;
  outDir: string;
  resultsPath: string | undefined;
  /** Print progress and the table. */
  print: boolean;
}

/** Figures of one variant of one benchmark. */
export interface VariantFigures {
  name: string;
  samples: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** Median CPU time (all threads) per operation: steadier than wall time on a busy machine. */
  cpuMedianMs: number;
  /** MB/s at the median, for the variants that read a whole file. */
  throughputMBs: number | null;
  /** Highest peak RSS over its child processes, bytes. */
  peakRssBytes: number;
  /** Highest growth of RSS over what the child held before the measured runs, bytes. */
  peakRssDeltaBytes: number;
  check: number | string;
  io?: MeasureResult["io"];
  /** Why the variant could not be measured (its figures are then NaN, null in the JSON). */
  error?: string;
}

/** One benchmark: its variants and its target's verdict. */
export interface BenchmarkFigures {
  name: string;
  /** Size of the file it reads, bytes (0 for the store benchmarks). */
  fileBytes: number;
  variants: VariantFigures[];
  target: {
    /** The target in a few words, e.g. `>= 0.7x limit`. */
    description: string;
    /** The measured figure the target is about, as shown, e.g. `0.74x`. */
    shown: string;
    ratio: number;
    limit: number;
    pass: boolean;
  } | null;
  notes: string[];
}

/** The whole result document written to `bench/results.json`. */
export interface BenchResults {
  date: string;
  machine: {
    cpu: string;
    cores: number;
    memoryBytes: number;
    deno: string;
    v8: string;
    os: string;
    loadAverageStart: number[];
    loadAverageEnd: number[];
  };
  options: { sizes: string[]; rounds: number; storeCount: number; seed: number };
  baselineRssBytes: number;
  benchmarks: BenchmarkFigures[];
  durationSeconds: number;
}

const MEASURE_SCRIPT = fileURLToPath(new URL("./measure.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

async function runChild(request: MeasureRequest): Promise<MeasureResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // Reading /proc/self (peak RSS) needs all permissions in Deno 2.
      "--allow-all",
      "--quiet",
      `--config=${CONFIG}`,
      "--v8-flags=--expose-gc",
      MEASURE_SCRIPT,
      JSON.stringify(request),
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout).trim();
  if (!output.success) {
    const stderr = new TextDecoder().decode(output.stderr).trim();
    throw new Error(`Measurement ${request.task.kind} failed: ${stderr || stdout}`);
  }
  return JSON.parse(stdout.split("\n").at(-1)!) as MeasureResult;
}

interface Variant {
  name: string;
  task: MeasureTask;
  warmup: number;
  iterations: number;
  warmupTask?: MeasureTask;
  /** Bytes one operation reads, for the throughput. */
  bytes?: number;
}

/** Runs the variants interleaved, `rounds` child processes each, and sums up each one. */
async function measureGroup(
  variants: Variant[],
  rounds: number,
  log: (text: string) => void,
): Promise<VariantFigures[]> {
  const results: MeasureResult[][] = variants.map(() => []);
  const errors: (string | undefined)[] = variants.map(() => undefined);
  for (let round = 0; round < rounds; round++) {
    for (const [index, variant] of variants.entries()) {
      // A variant that failed once (the naive way cannot hold a 1 GB file in one string)
      // fails again: it is not run again.
      if (errors[index] !== undefined) continue;
      try {
        const result = await runChild({
          task: variant.task,
          warmup: variant.warmup,
          iterations: variant.iterations,
          ...(variant.warmupTask ? { warmupTask: variant.warmupTask } : {}),
        });
        results[index]!.push(result);
        log(
          `  round ${round + 1}/${rounds} ${variant.name}: ${
            result.samples.map((s) => s.toFixed(1)).join(" ")
          } ms, peak ${mb(result.peakRss)}`,
        );
      } catch (error) {
        errors[index] = error instanceof Error ? error.message : String(error);
        log(`  round ${round + 1}/${rounds} ${variant.name}: FAILED ${errors[index]}`);
      }
    }
  }
  return variants.map((variant, index) =>
    summarize(variant.name, results[index]!, variant.bytes, errors[index])
  );
}

/** Sums up the children's results of one variant. */
function summarize(
  name: string,
  runs: MeasureResult[],
  bytes?: number,
  error?: string,
): VariantFigures {
  const samples = runs.flatMap((r) => r.samples).sort((a, b) => a - b);
  const median = quantile(samples, 0.5);
  const ios = runs.map((r) => r.io).filter((io) => io !== undefined);
  return {
    name,
    samples: samples.length,
    medianMs: round3(median),
    minMs: round3(samples[0] ?? NaN),
    maxMs: round3(samples.at(-1) ?? NaN),
    cpuMedianMs: round3(quantile(runs.flatMap((r) => r.cpuSamples).sort((a, b) => a - b), 0.5)),
    throughputMBs: bytes ? round3(bytes / MB / (median / 1000)) : null,
    peakRssBytes: Math.max(0, ...runs.map((r) => r.peakRss)),
    peakRssDeltaBytes: Math.max(0, ...runs.map((r) => Math.max(0, r.peakRss - r.rssBefore))),
    check: runs.at(-1)?.check ?? "",
    ...(ios.length > 0 ? { io: ios[0]! } : {}),
    ...(error === undefined ? {} : { error: firstLine(error) }),
  };
}

/** The first line of an error, without ANSI colours. */
function firstLine(text: string): string {
  // deno-lint-ignore no-control-regex
  const plain = text.replace(/\x1b\[[0-9;]*m/g, "");
  const line = plain.split("\n").find((l) => /error|Error/.test(l)) ?? plain.split("\n")[0]!;
  return (/(\w*Error: .*)$/.exec(line)?.[1] ?? line).trim();
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.ceil(at);
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (at - low);
}

const round3 = (n: number) => Math.round(n * 1000) / 1000;
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`;

/** A session small enough to warm the code up on before a big file's single run. */
const WARMUP_SIZE = MB;

/**
 * Per-child repetitions: small files repeat inside the child after two warm-ups; a big file
 * is read once, after two warm-ups of the same work on a small session (`warm`).
 */
function repetitions(
  session: GeneratedSession,
  warm: GeneratedSession,
  task: MeasureTask,
): { warmup: number; iterations: number; warmupTask?: MeasureTask } {
  if (session.bytes <= 16 * MB) return { warmup: 2, iterations: 3 };
  const warmupTask: MeasureTask = "root" in task && "id" in task
    ? { ...task, root: warm.root, id: warm.id }
    : "path" in task
    ? { ...task, path: warm.path }
    : task;
  return { warmup: 2, iterations: 1, warmupTask };
}

/** A variant reading `session`, with its repetitions and warm-up. */
function fileVariant(
  name: string,
  session: GeneratedSession,
  warm: GeneratedSession,
  task: MeasureTask,
): Variant {
  return { name, task, bytes: session.bytes, ...repetitions(session, warm, task) };
}

/** Child processes per variant: fewer for the big files, which take seconds each. */
function roundsFor(bytes: number, rounds: number): number {
  return bytes > 16 * MB ? Math.max(3, rounds - 2) : rounds;
}

function machineInfo(): Omit<BenchResults["machine"], "loadAverageEnd" | "cpu"> {
  return {
    cores: navigator.hardwareConcurrency,
    memoryBytes: Deno.systemMemoryInfo().total,
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    os: `${Deno.build.os} ${Deno.build.arch}`,
    loadAverageStart: Deno.loadavg(),
  };
}

/** Runs the whole benchmark and returns its figures (and writes them, with `resultsPath`). */
export async function runBenchmarks(options: BenchOptions): Promise<BenchResults> {
  const started = performance.now();
  const log = (text: string) => {
    if (options.print) console.error(text);
  };
  const machine = machineInfo();
  const benchmarks: BenchmarkFigures[] = [];
  const { rounds, outDir, seed } = options;

  log(`Generating sessions into ${outDir} (reused when present)...`);
  const plain = new Map<number, GeneratedSession>();
  const withCheckpoints = new Map<number, GeneratedSession>();
  for (const size of options.sizes) {
    plain.set(size, await ensureSession(outDir, { size, seed, checkpoints: false }));
    withCheckpoints.set(size, await ensureSession(outDir, { size, seed, checkpoints: true }));
  }
  const warmPlain = await ensureSession(outDir, { size: WARMUP_SIZE, seed, checkpoints: false });
  const warmCheckpoints = await ensureSession(outDir, {
    size: WARMUP_SIZE,
    seed,
    checkpoints: true,
  });
  const store = await ensureStore(outDir, { count: options.storeCount, seed });
  log(`  store: ${store.count} sessions over ${store.days} days, ${mb(store.bytes)}`);

  const [baseline] = await measureGroup(
    [{ name: "noop", task: { kind: "noop" }, warmup: 0, iterations: 1 }],
    1,
    log,
  );

  for (const size of options.sizes) {
    const session = plain.get(size)!;
    const label = sizeLabel(size);
    log(`Full resume, ${label} (${session.records} records)...`);
    const [turnlog, naive, limit, kept, forward] = await measureGroup(
      [
        fileVariant("turnlog resumeSession", session, warmPlain, {
          kind: "resume",
          root: session.root,
          id: session.id,
        }),
        fileVariant("naive", session, warmPlain, { kind: "naive", path: session.path }),
        fileVariant("limit", session, warmPlain, { kind: "limit", path: session.path }),
        fileVariant("limit + history kept", session, warmPlain, {
          kind: "limit_keep",
          path: session.path,
        }),
        fileVariant("forward replay only", session, warmPlain, {
          kind: "resume_full",
          path: session.path,
        }),
      ],
      roundsFor(session.bytes, rounds),
      log,
    );
    const ratio = limit!.medianMs / turnlog!.medianMs;
    // A naive way that cannot do it at all (a 1 GB file is past V8's longest string) is slower.
    const vsNaive = naive!.error ? Infinity : naive!.medianMs / turnlog!.medianMs;
    benchmarks.push({
      name: `full resume ${label}`,
      fileBytes: session.bytes,
      variants: [turnlog!, naive!, limit!, kept!, forward!],
      target: {
        description: ">= 0.7x limit, >= 1x naive",
        shown: `${formatRatio(ratio)} limit, ${
          naive!.error ? "naive failed" : `${formatRatio(vsNaive)} naive`
        }`,
        ratio: round3(ratio),
        limit: 0.7,
        pass: ratio >= 0.7 && vsNaive >= 1,
      },
      notes: [
        `${session.records} records, ${session.orphanCalls} orphan calls, ${session.largeOutputs} outputs >= 40 KB`,
        `throughput vs the limit with the history kept: ${
          formatRatio(kept!.medianMs / turnlog!.medianMs)
        }; CPU time vs the limit: ${
          formatRatio(limit!.cpuMedianMs / turnlog!.cpuMedianMs)
        }; the forward replay alone (no backward search for a checkpoint) takes ${
          formatRatio(forward!.medianMs / turnlog!.medianMs)
        } of resumeSession's time`,
      ],
    });
  }

  for (const size of options.sizes) {
    const session = withCheckpoints.get(size)!;
    const label = sizeLabel(size);
    log(`Resume from the last checkpoint, ${label}...`);
    const [fromCheckpoint, full] = await measureGroup(
      [
        fileVariant("turnlog resumeSession (checkpoint)", session, warmCheckpoints, {
          kind: "resume",
          root: session.root,
          id: session.id,
        }),
        fileVariant("full forward replay", session, warmCheckpoints, {
          kind: "resume_full",
          path: session.path,
        }),
      ],
      roundsFor(session.bytes, rounds),
      log,
    );
    const ratio = fromCheckpoint!.medianMs / full!.medianMs;
    benchmarks.push({
      name: `checkpoint resume ${label}`,
      fileBytes: session.bytes,
      variants: [fromCheckpoint!, full!],
      target: {
        description: "<= 5% of full replay",
        shown: `${(100 * ratio).toFixed(1)}%`,
        ratio: round3(ratio),
        limit: 0.05,
        pass: ratio <= 0.05,
      },
      notes: [
        `${session.checkpointCount} checkpoints, the last at ${
          (100 * session.lastCheckpointOffset / session.bytes).toFixed(2)
        }% of the file`,
      ],
    });
  }

  log(`Find by id among ${store.count} sessions...`);
  const [find, findNaive] = await measureGroup(
    [
      {
        name: "turnlog findSession",
        task: { kind: "find", root: store.root, ids: store.lookupIds },
        warmup: 1,
        iterations: 5,
      },
      {
        name: "naive (first line of every file)",
        task: { kind: "find_naive", root: store.root, ids: store.lookupIds },
        warmup: 0,
        iterations: 1,
      },
    ],
    rounds,
    log,
  );
  const findRatio = findNaive!.medianMs / find!.medianMs;
  benchmarks.push({
    name: `find by id (${store.count} sessions)`,
    fileBytes: 0,
    variants: [find!, findNaive!],
    target: {
      description: ">= 100x faster than naive",
      shown: `${formatRatio(findRatio)} faster`,
      ratio: round3(findRatio),
      limit: 100,
      pass: findRatio >= 100,
    },
    notes: [
      `per lookup: turnlog opened ${find!.io?.filesOpened ?? "?"} files and listed ${
        find!.io?.dirsListed ?? "?"
      } folders; naive opened ${findNaive!.io?.filesOpened ?? "?"} files`,
    ],
  });

  log(`List the newest 25 of ${store.count} sessions...`);
  const [list, listNaive] = await measureGroup(
    [
      {
        name: "turnlog listSessions",
        task: { kind: "list", root: store.root },
        warmup: 2,
        iterations: 3,
      },
      {
        name: "naive (every file, then the 25 again)",
        task: { kind: "list_naive", root: store.root },
        warmup: 0,
        iterations: 1,
      },
    ],
    rounds,
    log,
  );
  const listIo = list!.io;
  const expected = store.newestIds.join(",");
  // Each listed file opened once and read once (its lines and turns are counted), and nothing
  // else opened or read.
  const listOk = list!.check === expected && listIo !== undefined &&
    listIo.filesOpened <= 25 && listIo.bytesRead <= store.newestBytes &&
    listNaive!.medianMs > list!.medianMs;
  benchmarks.push({
    name: `list newest 25 (${store.count} sessions)`,
    fileBytes: 0,
    variants: [list!, listNaive!],
    target: {
      description: "opens each of the 25 listed files once, reads nothing else; faster than naive",
      shown: `${listIo?.filesOpened ?? "?"} files, ${
        ((listIo?.bytesRead ?? 0) / 1024).toFixed(0)
      } of ${(store.newestBytes / 1024).toFixed(0)} KiB; ${
        formatRatio(listNaive!.medianMs / list!.medianMs)
      } faster`,
      ratio: listIo?.filesOpened ?? -1,
      limit: 25,
      pass: listOk,
    },
    notes: [
      `turnlog opened ${listIo?.filesOpened} files, read ${listIo?.bytesRead} bytes, listed ${listIo?.dirsListed} folders; naive opened ${
        listNaive!.io?.filesOpened
      } files, read ${listNaive!.io?.bytesRead} bytes`,
      `turnlog vs naive: ${(listNaive!.medianMs / list!.medianMs).toFixed(0)}x faster`,
      list!.check === expected ? "the newest 25, newest first" : "WRONG ORDER OR SESSIONS",
    ],
  });

  const inspectSize = options.sizes.includes(100 * MB)
    ? 100 * MB
    : options.sizes.filter((s) => s <= 100 * MB).at(-1) ?? options.sizes[0]!;
  const inspected = plain.get(inspectSize)!;
  log(`Inspect --json, ${sizeLabel(inspectSize)}...`);
  const [inspect] = await measureGroup(
    [
      fileVariant("turnlog inspectSession --json", inspected, warmPlain, {
        kind: "inspect",
        path: inspected.path,
      }),
    ],
    roundsFor(inspected.bytes, rounds),
    log,
  );
  const inspectRatio = inspect!.peakRssDeltaBytes / inspected.bytes;
  benchmarks.push({
    name: `inspect --json ${sizeLabel(inspectSize)}`,
    fileBytes: inspected.bytes,
    variants: [inspect!],
    target: {
      description: "RSS growth < 20% of file",
      shown: `${(100 * inspectRatio).toFixed(1)}%`,
      ratio: round3(inspectRatio),
      limit: 0.2,
      pass: inspectRatio < 0.2,
    },
    notes: [
      `RSS growth ${mb(inspect!.peakRssDeltaBytes)} over the process's ${
        mb(baseline!.peakRssBytes)
      } at rest; absolute peak ${mb(inspect!.peakRssBytes)}`,
    ],
  });

  const largest = Math.max(...options.sizes);
  const big = plain.get(largest)!;
  log(`Append one record, ${sizeLabel(largest)} file vs an empty session...`);
  const appendDir = join(outDir, "append");
  await Deno.remove(appendDir, { recursive: true }).catch(() => {});
  await Deno.mkdir(appendDir, { recursive: true });
  const bigCopy = join(appendDir, "big.jsonl");
  await Deno.copyFile(big.path, bigCopy);
  const fresh = await createSession(join(appendDir, "store"), {
    cwd: "/bench",
    modelProvider: "openai",
    model: "gpt-5",
    wireApi: "responses",
    policy: { approval: "ask-changes" },
  });
  fresh.writer.close();
  const pairRuns: MeasureResult[] = [];
  for (let round = 0; round < rounds; round++) {
    const result = await runChild({
      task: { kind: "append", paths: [bigCopy, fresh.location.path] },
      warmup: 4,
      iterations: 30,
    });
    pairRuns.push(result);
    log(
      `  round ${round + 1}/${rounds} append: ${result.samples.map((s) => s.toFixed(2)).join(" ")}`,
    );
  }
  // Samples alternate: the big file, then the empty one (swapped order every iteration).
  const side = (parity: number): MeasureResult[] =>
    pairRuns.map((run) => ({
      ...run,
      samples: run.samples.filter((_, index) => index % 2 === parity),
      cpuSamples: run.cpuSamples.filter((_, index) => index % 2 === parity),
    }));
  const appendBig = summarize(`append to ${sizeLabel(largest)}`, side(0));
  const appendEmpty = summarize("append to an empty session", side(1));
  const appendRatio = appendBig.medianMs / appendEmpty.medianMs;
  benchmarks.push({
    name: `append (${sizeLabel(largest)} vs empty)`,
    fileBytes: big.bytes,
    variants: [appendBig, appendEmpty],
    target: {
      description: "same cost (ratio <= 1.25)",
      shown: formatRatio(appendRatio),
      ratio: round3(appendRatio),
      limit: 1.25,
      pass: appendRatio <= 1.25,
    },
    notes: [
      largest < 1 << 30 ? `${sizeLabel(largest)} file: run with --large for the 1 GB one` : "",
    ].filter((n) => n),
  });
  await Deno.remove(appendDir, { recursive: true }).catch(() => {});

  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: { cpu: String(baseline!.check), ...machine, loadAverageEnd: Deno.loadavg() },
    options: {
      sizes: options.sizes.map(sizeLabel),
      rounds,
      storeCount: options.storeCount,
      seed,
    },
    baselineRssBytes: baseline!.peakRssBytes,
    benchmarks,
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
  if (options.resultsPath) {
    await Deno.writeTextFile(options.resultsPath, JSON.stringify(results, null, 2) + "\n");
  }
  return results;
}

/** The results as a Markdown table. */
export function renderTable(results: BenchResults): string {
  const rows: string[] = [
    "| benchmark | variant | median ms | min ms | max ms | CPU ms | MB/s | peak RSS | RSS growth | measured | target | result |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|---|",
  ];
  for (const bench of results.benchmarks) {
    bench.variants.forEach((v, index) => {
      const first = index === 0 && bench.target !== null;
      rows.push(
        `| ${index === 0 ? bench.name : ""} | ${
          v.error ? `${v.name}: failed (${v.error})` : v.name
        } | ${fixed(v.medianMs)} | ${fixed(v.minMs)} | ${fixed(v.maxMs)} | ${
          fixed(v.cpuMedianMs)
        } | ${
          v.throughputMBs === null || Number.isNaN(v.throughputMBs)
            ? ""
            : v.throughputMBs.toFixed(0)
        } | ${mb(v.peakRssBytes)} | ${mb(v.peakRssDeltaBytes)} | ${
          first ? bench.target!.shown : ""
        } | ${first ? bench.target!.description : ""} | ${
          first ? (bench.target!.pass ? "PASS" : "MISS") : ""
        } |`,
      );
    });
  }
  return rows.join("\n");
}

const fixed = (ms: number) =>
  Number.isNaN(ms) ? "-" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);

/** The notes of every benchmark, as a Markdown list. */
export function renderNotes(results: BenchResults): string {
  return results.benchmarks.flatMap((b) => b.notes.map((n) => `- ${b.name}: ${n}`)).join("\n");
}

function formatRatio(ratio: number): string {
  return ratio >= 10
    ? `${ratio.toFixed(0)}x`
    : ratio >= 1
    ? `${ratio.toFixed(2)}x`
    : `${ratio.toFixed(3)}x`;
}

/** The machine line shown under the table. */
export function renderMachine(results: BenchResults): string {
  const m = results.machine;
  return `${m.cpu}, ${m.cores} cores, ${
    (m.memoryBytes / (1 << 30)).toFixed(1)
  } GiB RAM, ${m.os}, ` +
    `Deno ${m.deno} (V8 ${m.v8}); load average ${m.loadAverageStart[0]?.toFixed(2)} at start, ` +
    `${m.loadAverageEnd[0]?.toFixed(2)} at end; ${results.date}; ${results.durationSeconds} s; ` +
    `sizes ${results.options.sizes.join(", ")}, ${results.options.rounds} rounds, ` +
    `process at rest ${mb(results.baselineRssBytes)}`;
}

function parseOptions(args: string[]): BenchOptions {
  const { values } = parseArgs({
    args,
    options: {
      large: { type: "boolean", default: false },
      sizes: { type: "string" },
      rounds: { type: "string", default: "5" },
      store: { type: "string", default: "10000" },
      seed: { type: "string", default: "42" },
      out: { type: "string", default: "bench/out" },
      results: { type: "string", default: "bench/results.json" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task bench [--large] [--sizes 1MB,10MB,100MB] [--rounds 5] [--store 10000]\n" +
        "                       [--seed 42] [--out bench/out] [--results bench/results.json]",
    );
    Deno.exit(0);
  }
  const sizes = values.sizes ? values.sizes.split(",").map(parseSize) : [MB, 10 * MB, 100 * MB];
  if (values.large) sizes.push(1 << 30);
  const count = (flag: string, text: string, min: number) => {
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min) {
      throw new Error(`Invalid --${flag} "${text}": expected an integer >= ${min}`);
    }
    return value;
  };
  return {
    sizes,
    rounds: count("rounds", values.rounds, 1),
    storeCount: count("store", values.store, 25),
    seed: count("seed", values.seed, 0),
    outDir: values.out,
    resultsPath: values.results,
    print: true,
  };
}

if (import.meta.main) {
  try {
    const results = await runBenchmarks(parseOptions(Deno.args));
    console.log(renderTable(results));
    console.log();
    console.log(renderNotes(results));
    console.log();
    console.log(renderMachine(results));
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
