/**
 * Repair: a damaged session file made usable again without losing a byte. The plan
 * ({@linkcode RepairPlan}) is worked out first, by turnlog for its own files and by the
 * file's adapter for another tool's ({@linkcode planFileRepair}); {@linkcode repairSession}
 * does exactly the plan under the file's lock, keeping every byte it takes out in the sidecar
 * (`store/`: the sidecar and the one atomic rewrite); {@linkcode renderRepair} shows it.
 *
 * @module
 */
export * from "./_plan.ts";
export {
  ForeignRepairError,
  planRepair,
  planTurnlogFileRepair,
  splitGluedRecords,
} from "./_turnlog.ts";
export {
  editsOf,
  planForeignFileRepair,
  repairForeignFile,
  type RepairForeignOptions,
} from "./_foreign.ts";
export * from "./_dispatch.ts";
export * from "./_repair.ts";
export * from "./_render.ts";
