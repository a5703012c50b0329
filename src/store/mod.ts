/**
 * The session store: append-only JSONL files, found by id from file names alone, written by one
 * locked writer at a time, with a sidecar that keeps every byte a repair takes out.
 *
 * @module
 */
export * from "./_store.ts";
export * from "./_sidecar.ts";
