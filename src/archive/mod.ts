/**
 * The archive: every session of every home turnlog reads, kept incrementally in
 * content-addressed zstd chunks with an index written after them (`archive`), checked
 * (`archive --check`), put back into a tool's home byte for byte or into a moved project
 * (`restore`), and the sessions whose original is gone shown to the readers (the view).
 *
 * @module
 */
export * from "./_layout.ts";
export * from "./_sources.ts";
export * from "./_index.ts";
export { CHUNK_BYTES, ChunkError, readChunk } from "./_chunks.ts";
export { KILL_AT_ENV } from "./_durable.ts";
export * from "./_lock.ts";
export * from "./_archive.ts";
export * from "./_check.ts";
export * from "./_sessions.ts";
export * from "./_restore.ts";
export * from "./_view.ts";
