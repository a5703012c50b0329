/**
 * The shape of the benchmark's figures: what `runBenchmarks` returns and `bench/results.json`
 * holds, one entry per benchmark with its variants and its target's verdict.
 *
 * @module
 */

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
  /** Install and measure the other tools (ccusage, claude-run); off for a smoke run. */
  peers: boolean;
  /** Only the benchmarks whose names hold one of these words (all when absent). */
  only?: string[];
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
  /** A process of its own was measured (a command): its peak is its whole RSS, no growth. */
  wholeProcess?: boolean;
  check: number | string;
  io?: { filesOpened: number; bytesRead: number; dirsListed: number };
  /** Why the variant could not be measured (its figures are then NaN, null in the JSON). */
  error?: string;
}

/** A benchmark's target and whether the run met it. */
export interface Target {
  /** The target in a few words, e.g. `>= 0.7x limit`. */
  description: string;
  /** The measured figure the target is about, as shown, e.g. `0.74x`. */
  shown: string;
  ratio: number;
  limit: number;
  /**
   * Whether the run met the target; null where the target is not stated for this size (a
   * smoke run's tiny files, where fixed costs are all there is to measure).
   */
  pass: boolean | null;
}

/** One benchmark: its variants and its target's verdict. */
export interface BenchmarkFigures {
  name: string;
  /** Size of the file it reads, bytes (0 for the store benchmarks). */
  fileBytes: number;
  variants: VariantFigures[];
  target: Target | null;
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

/** A figure rounded to three decimals, as the results keep them. */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;

/** Bytes as MB with one decimal. */
export const mb = (bytes: number): string => `${(bytes / (1 << 20)).toFixed(1)} MB`;

/** A ratio with as many decimals as it needs: `135x`, `1.21x`, `0.359x`. */
export function formatRatio(ratio: number): string {
  return ratio >= 10
    ? `${ratio.toFixed(0)}x`
    : ratio >= 1
    ? `${ratio.toFixed(2)}x`
    : `${ratio.toFixed(3)}x`;
}

/**
 * How many times the naive way's time a variant takes, shown; "naive failed" when the naive
 * way could not do it at all (a 1 GB file is past V8's longest string): slower than anything.
 */
export function vsNaive(naive: VariantFigures, ms: number): { ratio: number; shown: string } {
  if (naive.error) return { ratio: Infinity, shown: "naive failed" };
  const ratio = naive.medianMs / ms;
  return { ratio, shown: `${formatRatio(ratio)} naive` };
}
