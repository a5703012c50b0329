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
import { inspectMemory } from "./inspect.ts";
import { otherTools } from "./formats.ts";
import { appendRecord } from "./append.ts";
import { postgresStore } from "./postgres.ts";
import { searchVsRipgrep } from "./search.ts";
import { usageVsCcusage } from "./usage.ts";
import { startup } from "./startup.ts";
import { archiveRuns } from "./archive.ts";

export * from "./_definition.ts";

/** Every benchmark, in the order the table shows them. */
export const BENCHMARKS: readonly BenchmarkDefinition[] = [
  fullResume,
  checkpointResume,
  findById,
  listNewest,
  inspectMemory,
  otherTools,
  appendRecord,
  postgresStore,
  searchVsRipgrep,
  usageVsCcusage,
  archiveRuns,
  startup,
];
