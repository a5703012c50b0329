/**
 * Measures a benchmark's variants side by side: each measurement in a child process of its
 * own (`bench/measure.ts`), the variants interleaved round by round so a noisy machine hits
 * them alike, then each variant's samples summed up (median, min, max, CPU, peak RSS).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import type { MeasureRequest, MeasureResult, MeasureTask } from "./measure.ts";
import { mb, round3, type VariantFigures } from "./figures.ts";

/** One variant of a benchmark: a measurement task and how often a child runs it. */
export interface Variant {
  name: string;
  task: MeasureTask;
  warmup: number;
  iterations: number;
  /** What the warm-up runs do instead of `task` (the same work on a small file). */
  warmupTask?: MeasureTask;
  /** Bytes one operation reads, for the throughput. */
  bytes?: number;
  /**
   * V8 flags the child runs with besides `--expose-gc`: a command's own (the inspect task's),
   * so its library call is measured as the command runs it.
   */
  v8Flags?: string[];
  /**
   * The names of the sides one child measures in turn (its samples alternate over them, as
   * the append task's do): one figure per side instead of one for the variant.
   */
  sides?: string[];
}

const MEASURE_SCRIPT = fileURLToPath(new URL("./measure.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** The V8 flags a task of deno.json runs its command with (`--v8-flags=a,b`). */
export async function taskV8Flags(task: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(CONFIG)) as {
    tasks: Record<string, { command: string }>;
  };
  const flags = /--v8-flags=(\S+)/.exec(config.tasks[task]?.command ?? "")?.[1];
  return flags ? flags.split(",") : [];
}

async function runChild(request: MeasureRequest, v8Flags: string[] = []): Promise<MeasureResult> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      // Reading /proc/self (peak RSS) needs all permissions in Deno 2.
      "--allow-all",
      "--quiet",
      `--config=${CONFIG}`,
      `--v8-flags=${["--expose-gc", ...v8Flags].join(",")}`,
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

/**
 * Runs the variants interleaved, `rounds` child processes each, and sums up each one (each
 * side of a variant with `sides`), in the order given.
 */
export async function measureGroup(
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
      const { name, task, warmup, iterations, warmupTask } = variant;
      try {
        const result = await runChild({
          task,
          warmup,
          iterations,
          ...(warmupTask && { warmupTask }),
        }, variant.v8Flags);
        results[index]!.push(result);
        log(
          `  round ${round + 1}/${rounds} ${name}: ${
            result.samples.map((s) => s.toFixed(2)).join(" ")
          } ms, peak ${mb(result.peakRss)}`,
        );
      } catch (error) {
        errors[index] = error instanceof Error ? error.message : String(error);
        log(`  round ${round + 1}/${rounds} ${name}: FAILED ${errors[index]}`);
      }
    }
  }
  return variants.flatMap((variant, index) => {
    const runs = results[index]!;
    if (!variant.sides) return [summarize(variant.name, runs, variant.bytes, errors[index])];
    const sides = variant.sides;
    return sides.map((side, at) =>
      summarize(side, runs.map((run) => sideOf(run, at, sides.length)), undefined, errors[index])
    );
  });
}

/** The samples of one side of a child that measured `count` sides in turn. */
function sideOf(run: MeasureResult, side: number, count: number): MeasureResult {
  return {
    ...run,
    samples: run.samples.filter((_, index) => index % count === side),
    cpuSamples: run.cpuSamples.filter((_, index) => index % count === side),
  };
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
    throughputMBs: bytes ? round3(bytes / (1 << 20) / (median / 1000)) : null,
    peakRssBytes: Math.max(0, ...runs.map((r) => r.peakRss)),
    peakRssDeltaBytes: Math.max(0, ...runs.map((r) => Math.max(0, r.peakRss - r.rssBefore))),
    check: runs.at(-1)?.check ?? "",
    ...(runs.some((r) => r.whole) ? { wholeProcess: true } : {}),
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
