/**
 * The benchmark, as a list of definitions: each plans its benchmarks for a run (variants,
 * rounds, target and notes), and `bench/run.ts` measures them in this order.
 *
 * @module
 */
import type { BenchmarkDefinition } from "./_definition.ts";
import { fullResume } from "./full_resume.ts";
import { checkpointResume } from "./checkpoint_resume.ts";
import { findById } from "./find.ts";
import { listNewest } from "./list.ts";
import { inspectJson } from "./inspect.ts";
import { appendRecord } from "./append.ts";
import { postgresStore } from "./postgres.ts";

export * from "./_definition.ts";

/** Every benchmark, in the order the table shows them. */
export const BENCHMARKS: readonly BenchmarkDefinition[] = [
  fullResume,
  checkpointResume,
  findById,
  listNewest,
  inspectJson,
  appendRecord,
  postgresStore,
];
