/**
 * The benchmark harness (`deno task bench`): generates the sessions once, then measures each
 * benchmark of `bench/benchmarks/` (turnlog side by side with the naive way and the limit, each
 * measurement in a child process of its own, the variants interleaved), prints a table and
 * writes the figures as JSON.
 *
 * Flags: `--large` adds the 1 GB session; `--sizes 1MB,10MB` replaces the sizes;
 * `--rounds N` child processes per variant; `--store N` sessions in the store;
 * `--out DIR` generated data; `--results FILE` the JSON; `--seed N`; `--no-peers` leaves the
 * other tools out (they are installed with npm into the output folder the first time);
 * `--only a,b` measures only the benchmarks whose names hold one of the words (a targeted run).
 *
 * @module
 */
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import {
  type CachedSession,
  ensureSession,
  ensureStore,
  parseSize,
  sizeLabel,
} from "../testing/generate/mod.ts";
import { type BenchContext, BENCHMARKS, type PlannedBenchmark } from "./benchmarks/mod.ts";
import type { BenchmarkFigures, BenchOptions, BenchResults } from "./figures.ts";
import { mb } from "./figures.ts";
import { measureGroup } from "./group.ts";
import { renderMachine, renderNotes, renderTable, withResults } from "./render.ts";

export * from "./figures.ts";
export * from "./render.ts";

const MB = 1 << 20;

/**
 * The session the code is warmed up on before a big file's single run: large enough that
 * V8 has optimized the per-line code by the end of the warm-ups (a 1 MB warm-up left it to
 * be optimized during the measured run, whose peak memory then held the optimizing
 * compiler's own, a few MB once per process), small enough to take a fraction of a second.
 */
const WARMUP_SIZE = 10 * MB;

type Log = (text: string) => void;

/** The sessions, the store and the process at rest: what the benchmarks are planned from. */
async function prepare(options: BenchOptions, log: Log): Promise<BenchContext> {
  const { outDir, seed } = options;
  log(`Generating sessions into ${outDir} (reused when present)...`);
  const plain = new Map<number, CachedSession>();
  const checkpoints = new Map<number, CachedSession>();
  for (const size of options.sizes) {
    plain.set(size, await ensureSession(outDir, { size, seed, checkpoints: false }));
    checkpoints.set(size, await ensureSession(outDir, { size, seed, checkpoints: true }));
  }
  // Only big files are warmed up on another session (see _definition.ts): without one, the
  // smallest session stands in and is never used.
  const warmSize = options.sizes.some((size) => size > 16 * MB)
    ? WARMUP_SIZE
    : Math.min(...options.sizes);
  const warm = {
    plain: await ensureSession(outDir, { size: warmSize, seed, checkpoints: false }),
    checkpoints: await ensureSession(outDir, { size: warmSize, seed, checkpoints: true }),
  };
  const store = await ensureStore(outDir, { count: options.storeCount, seed });
  log(`  store: ${store.count} sessions over ${store.days} days, ${mb(store.bytes)}`);
  const [baseline] = await measureGroup(
    [{ name: "noop", task: { kind: "noop" }, warmup: 0, iterations: 1 }],
    1,
    log,
  );
  return { options, sessions: { plain, checkpoints }, warm, store, baseline: baseline! };
}

/** Measures one planned benchmark's variants side by side and judges them. */
async function measure(planned: PlannedBenchmark, log: Log): Promise<BenchmarkFigures> {
  log(planned.progress);
  const variants = await measureGroup(planned.variants, planned.rounds, log);
  const { target, notes } = planned.judge(variants);
  await planned.cleanup?.();
  return { name: planned.name, fileBytes: planned.fileBytes, variants, target, notes };
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
  const log: Log = (text) => {
    if (options.print) console.error(text);
  };
  const machine = machineInfo();
  const context = await prepare(options, log);
  const benchmarks: BenchmarkFigures[] = [];
  const picked = (name: string) =>
    options.only === undefined || options.only.some((word) => name.includes(word));
  for (const definition of BENCHMARKS) {
    const { word } = definition;
    if (word && options.only && !options.only.some((only) => only.includes(word))) continue;
    for (const planned of await definition.plan(context)) {
      if (picked(planned.name)) benchmarks.push(await measure(planned, log));
      else await planned.cleanup?.();
    }
  }
  const results: BenchResults = {
    date: new Date().toISOString(),
    machine: { cpu: String(context.baseline.check), ...machine, loadAverageEnd: Deno.loadavg() },
    options: {
      sizes: options.sizes.map(sizeLabel),
      rounds: options.rounds,
      storeCount: options.storeCount,
      seed: options.seed,
    },
    baselineRssBytes: context.baseline.peakRssBytes,
    benchmarks,
    durationSeconds: Math.round((performance.now() - started) / 100) / 10,
  };
  if (options.resultsPath) {
    // `--only`'s results go to bench/out/, which a fresh checkout does not have.
    await Deno.mkdir(dirname(options.resultsPath), { recursive: true });
    await Deno.writeTextFile(options.resultsPath, JSON.stringify(results, null, 2) + "\n");
  }
  return results;
}

const DEFAULT_RESULTS = "bench/results.json";
const DEFAULT_DOCS = "docs/benchmarks.md";

function parseOptions(args: string[]): BenchOptions & { docsPath: string | undefined } {
  const { values } = parseArgs({
    args,
    options: {
      large: { type: "boolean", default: false },
      sizes: { type: "string" },
      rounds: { type: "string", default: "5" },
      store: { type: "string", default: "10000" },
      seed: { type: "string", default: "42" },
      out: { type: "string", default: "bench/out" },
      results: { type: "string" },
      "no-peers": { type: "boolean", default: false },
      only: { type: "string" },
      docs: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(
      "Usage: deno task bench [--large] [--sizes 1MB,10MB,100MB] [--rounds 5] [--store 10000]\n" +
        "                       [--seed 42] [--out bench/out] [--results bench/results.json]\n" +
        "                       [--no-peers] [--only 'inspect Codex,vs ccusage'] [--docs FILE]\n" +
        "The default run (bench/results.json) also rewrites the results of docs/benchmarks.md.",
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
    // A targeted run's figures are not the committed ones.
    resultsPath: values.results ?? (values.only ? "bench/out/only-results.json" : DEFAULT_RESULTS),
    print: true,
    peers: !values["no-peers"],
    // The committed results go into the docs; a run written elsewhere (the smoke run) does not.
    docsPath: values.docs ??
      (values.results === undefined && values.only === undefined ? DEFAULT_DOCS : undefined),
    ...(values.only ? { only: values.only.split(",").map((word) => word.trim()) } : {}),
  };
}

/** Rewrites the results section of the document at `path` (then formats it as `deno fmt` does). */
async function writeDocs(path: string, results: BenchResults): Promise<void> {
  const doc = withResults(await Deno.readTextFile(path), results);
  if (doc === undefined) throw new Error(`${path} has no results section to rewrite`);
  await Deno.writeTextFile(path, doc);
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", "-q", path] }).output();
  if (!fmt.success) throw new Error(`deno fmt ${path} failed`);
  console.error(`Results written to ${path}`);
}

if (import.meta.main) {
  try {
    const options = parseOptions(Deno.args);
    const results = await runBenchmarks(options);
    if (options.docsPath) await writeDocs(options.docsPath, results);
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
