/**
 * The one seeded session generator, for tests and the benchmark: sessions in the real record
 * format (turns, tool calls, orphan calls, compaction checkpoints, and on request the damage
 * crashes and editors leave), small in memory or of a target size in a store, and a store of
 * many sessions. The same seed gives the same files on every machine.
 *
 * @module
 */
export * from "./_rng.ts";
export * from "./_session.ts";
export * from "./_write.ts";
export * from "./_cache.ts";
