/**
 * What a benchmark definition is: the benchmarks it plans for a run (their variants, rounds
 * and how their figures are judged against the target), and what it plans them from.
 *
 * @module
 */
import type { CachedSession, GeneratedStore } from "../../testing/generate/mod.ts";
import type { MeasureTask } from "../measure.ts";
import { type BenchOptions, round3, type Target, type VariantFigures } from "../figures.ts";

const MB = 1 << 20;
import type { Variant } from "../group.ts";

/** The generated data and the figures every definition may plan from. */
export interface BenchContext {
  options: BenchOptions;
  /** A session per size, without checkpoints and with them. */
  sessions: { plain: Map<number, CachedSession>; checkpoints: Map<number, CachedSession> };
  /** Small sessions to warm the code up on before a big file's single run. */
  warm: { plain: CachedSession; checkpoints: CachedSession };
  store: GeneratedStore;
  /** The process at rest: what a child holds before it does anything. */
  baseline: VariantFigures;
}

/** One benchmark of a run, ready to measure. */
export interface PlannedBenchmark {
  /** Its name in the table, e.g. `full resume 1MB`. */
  name: string;
  /** Size of the file it reads, bytes (0 for the store benchmarks). */
  fileBytes: number;
  /** The progress line printed before it is measured. */
  progress: string;
  /** Its variants, measured side by side. */
  variants: Variant[];
  /** Child processes per variant. */
  rounds: number;
  /** The target's verdict and the notes, from the variants' figures (in the variants' order). */
  judge(figures: VariantFigures[]): { target: Target; notes: string[] };
  /** Removes what planning made. */
  cleanup?(): Promise<void>;
}

/** A kind of benchmark: plans this run's benchmarks of that kind (one per size, or one). */
export interface BenchmarkDefinition {
  /**
   * A word every name of its benchmarks holds, when it has one: a targeted run (`--only`)
   * whose words do not hold it does not plan it (its planning is costly: a database, a home).
   */
  word?: string;
  plan(context: BenchContext): PlannedBenchmark[] | Promise<PlannedBenchmark[]>;
}

/**
 * A target with its ratio rounded as the results keep it; with `judged: false` (a size the
 * target is not stated for) the figure is shown without a verdict.
 */
export function target(
  description: string,
  verdict: { shown: string; ratio: number; limit: number; pass: boolean; judged?: boolean },
): Target {
  const { judged, ...figures } = verdict;
  return {
    description,
    ...figures,
    ratio: round3(verdict.ratio),
    pass: judged === false ? null : verdict.pass,
  };
}

/** The smallest file a size-bound target is stated for. */
export const JUDGED_FROM = {
  resume: MB,
  checkpoint: 100 * MB,
  inspect: 100 * MB,
  append: 100 * MB,
  /** Sessions in the store, for finding and listing. */
  store: 1000,
} as const;

/**
 * Per-child repetitions: small files repeat inside the child after two warm-ups; a big file
 * is read once, after two warm-ups of the same work on a 10 MB session (`warm`).
 */
function repetitions(
  session: CachedSession,
  warm: CachedSession,
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
export function fileVariant(
  name: string,
  session: CachedSession,
  warm: CachedSession,
  task: MeasureTask,
): Variant {
  return { name, task, bytes: session.bytes, ...repetitions(session, warm, task) };
}

/** Child processes per variant: fewer for the big files, which take seconds each. */
export function roundsFor(bytes: number, rounds: number): number {
  return bytes > 16 * MB ? Math.max(3, rounds - 2) : rounds;
}
