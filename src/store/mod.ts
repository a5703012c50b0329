/**
 * The session store: where sessions are kept, behind one interface ({@linkcode SessionStore}).
 * The default is the file store, append-only JSONL files under
 * `<root>/YYYY/MM/DD/<time>-<id>.jsonl`, found by id from file names alone, listed newest
 * first, written by one locked writer at a time, with a sidecar that keeps every byte a repair
 * takes out; a `postgres://` URL opens the PostgreSQL store instead ({@linkcode openStore}).
 *
 * @module
 */
export * from "./_layout.ts";
export * from "./_find.ts";
export * from "./_prefix.ts";
export * from "./_listing.ts";
export * from "./_lock.ts";
export * from "./_seal.ts";
export * from "./_writer.ts";
export * from "./_create.ts";
export * from "./_repair_temp.ts";
export * from "./_sidecar.ts";
export * from "./_rewrite.ts";
export * from "./_commit.ts";
export * from "./_session_store.ts";
export * from "./_file_store.ts";
export * from "./_spec.ts";
export * from "./_open.ts";
export * from "./_transfer.ts";
