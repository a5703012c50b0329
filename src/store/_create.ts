/**
 * A new session: its `session_meta` made from what its first run starts with, written as the
 * first record of the store's new session, whose locked writer comes back.
 *
 * @module
 */
import {
  clock,
  FORMAT_VERSION,
  idTime,
  makeRecord,
  newId,
  type SessionMeta,
} from "../record/mod.ts";
import { FileStore } from "./_file_store.ts";
import type { SessionLocation } from "./_layout.ts";
import type { SessionStore, StoreWriter } from "./_session_store.ts";

/** What a new session file starts with. */
export interface NewSession {
  /** The workspace folder of the first run. */
  cwd: string;
  /** Who serves the model. */
  modelProvider: string;
  /** The model of the first run. */
  model: string;
  /** The wire API of the first run. */
  wireApi: SessionMeta["wireApi"];
  /** The policy of the first run. */
  policy: SessionMeta["policy"];
  /** Where an imported session came from. */
  importedFrom?: SessionMeta["importedFrom"];
  /** Where a fork came from. */
  forkedFrom?: SessionMeta["forkedFrom"];
}

/**
 * Creates a session whose id is `id` (the first run's id, a UUIDv7), writing `session_meta`,
 * and returns its locked writer with the written meta. `store` is a store, or a sessions folder
 * (the file store there).
 */
export async function createSession(
  store: string | SessionStore,
  init: NewSession & { id?: string },
): Promise<{ writer: StoreWriter; meta: SessionMeta; location: SessionLocation }> {
  const id = init.id ?? newId();
  const createdAt = idTime(id) ?? clock().now();
  const meta: SessionMeta = {
    version: FORMAT_VERSION,
    id,
    createdAt: createdAt.toISOString(),
    cwd: init.cwd,
    modelProvider: init.modelProvider,
    model: init.model,
    wireApi: init.wireApi,
    policy: init.policy,
    ...(init.importedFrom === undefined ? {} : { importedFrom: init.importedFrom }),
    ...(init.forkedFrom === undefined ? {} : { forkedFrom: init.forkedFrom }),
  };
  const target = typeof store === "string" ? new FileStore(store) : store;
  const { writer, location } = await target.create(makeRecord("session_meta", meta, createdAt));
  return { writer, meta, location };
}
