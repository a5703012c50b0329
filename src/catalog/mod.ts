/**
 * The catalog: one SQLite database (node:sqlite: WAL, a busy timeout, FTS5 with the trigram
 * tokenizer) of every session file of every home and of the archive, kept up to date by every
 * command that reads a home, incrementally (an unchanged file costs a `stat`, a grown one is
 * read from its indexed offset, a rewritten one again); the listings, the browser's list and
 * the search answer from it. A cache: deleting it loses nothing.
 *
 * @module
 */
export * from "./_location.ts";
export { CATALOG_VERSION } from "./_database.ts";
export type {
  CatalogSource,
  ReaderRead,
  UpdateOptions,
  UpdateProgress,
  UpdateSummary,
  WalkedSession,
} from "./_walk.ts";
export { CATALOG_KILL_AT_ENV, TAIL_BYTES, tailHash, updateCatalog } from "./_update.ts";
export * from "./_catalog.ts";
export * from "./_listing.ts";
export * from "./_search.ts";
