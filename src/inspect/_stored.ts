/**
 * The inspector over any store: a session read from the store that keeps it (a file as
 * {@linkcode inspectSession} reads it; a database's records in append order) into the same
 * report. Repair is for files only: a database keeps whole records, so it has nothing to
 * repair.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { SessionLocation, SessionStore } from "../store/mod.ts";
import { type InspectOptions, inspectSession } from "./_inspect.ts";
import { TurnSegmenter } from "./_segmenter.ts";
import type { InspectReport } from "./_types.ts";

/** Repair asked of a store that keeps no files. */
export class RepairNotForStoreError extends TurnlogError {
  /** An error naming the store. */
  constructor(store: string, options?: ErrorOptions) {
    super(
      "usage",
      `Repair is for session files: ${store} keeps whole records only (an append commits ` +
        `whole or not at all), so it has no torn or bad lines to repair`,
      options,
    );
    this.name = "RepairNotForStoreError";
  }
}

const encoder = new TextEncoder();

/**
 * Segments the session at `location` in `store`, streaming, without changing it. A session
 * kept in a file of its own is inspected as its file ({@linkcode inspectSession}, continuing from the store's
 * folder); any other store's records are read in append order, each record's position its
 * sequence number, and the session's size is its size as a JSONL file.
 */
export async function inspectStoredSession(
  store: SessionStore,
  location: SessionLocation,
  options: Omit<InspectOptions, "root"> = {},
): Promise<InspectReport> {
  const file = store.fileOf(location);
  if (file !== undefined) return await inspectSession(file, { ...options, root: store.name });
  const segmenter = new TurnSegmenter(location.path, options);
  let sizeBytes = 0;
  for await (const entry of store.read(location)) {
    segmenter.push(entry, entry);
    sizeBytes += encoder.encode(entry.text).length + 1;
  }
  const segmented = segmenter.finish({ sizeBytes });
  const prefix = await store.shortestUniquePrefix(location.id);
  const point = { root: store.name, prefix };
  return {
    ...segmented,
    continueCommand: options.commandFor ? options.commandFor(point) : null,
    continuePrefix: prefix,
  };
}
