/**
 * `inspect` on a store: a database's sessions listed, shown (text, JSON, history, HTML) and
 * exported as JSONL (`--export FILE`, from any store); repair refused there, as a database keeps
 * whole records. Loaded when a store decides (cli/inspect.ts tells so from the names alone, and
 * hands a folder given by `--store` or `TURNLOG_STORE` to the files flow as its sessions root).
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import type { RenderOptions } from "../src/inspect/mod.ts";
import type { SessionLocation, SessionStore } from "../src/store/mod.ts";
// Which store, from names alone: a command that reads files loads no store here (the
// inspector and the store are imported where a database or an export needs them).
import { resolveStoreSpec } from "../src/store/_spec.ts";
import { formatBytes, visibleJson } from "../src/text/mod.ts";
import { isPath, parsePositiveInt, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { colorFor, printPieces, type Sink, stderr } from "./_output.ts";
import { htmlModule, inspectModule, resumeModule, storeModule } from "./_late_modules.ts";

/** The inspect flags this module reads (it may set `sessions-dir`). */
export interface StoreInspectFlags {
  store?: string | undefined;
  "sessions-dir"?: string | undefined;
  export?: string | undefined;
  list?: boolean | undefined;
  last?: boolean | undefined;
  limit?: string | undefined;
  json?: boolean | undefined;
  entries?: boolean | undefined;
  full?: boolean | undefined;
  history?: boolean | undefined;
  html?: string | undefined;
  repair?: boolean | undefined;
}

/** How the text views render: colours on a terminal only (a captured sink is not one). */
function renderOptions(values: StoreInspectFlags, out: Sink): RenderOptions {
  const full = values.full === true;
  return {
    color: colorFor(out),
    ...(full ? { textChars: Number.MAX_SAFE_INTEGER, textLines: Number.MAX_SAFE_INTEGER } : {}),
  };
}

/** `--export FILE`: the session's stored records, one a line, from any store. */
async function exportTo(values: StoreInspectFlags, target: string | undefined, file: string) {
  if ((target === undefined && !values.last) || values.list) {
    throw new UsageError("--export needs a session: an id, a prefix or a path");
  }
  for (const flag of ["json", "entries", "history", "repair", "html"] as const) {
    if (values[flag]) throw new UsageError(`--export does not go with --${flag}`);
  }
  if (file === "" || file === "-") throw new UsageError("--export needs a file name");
  const { store, location } = await locate(values, target);
  const { exportSession } = await storeModule();
  try {
    if (store.fileOf(location) === file) {
      throw new UsageError(`Refusing to export ${location.path} onto itself`);
    }
    const exported = await exportSession(store, location, file);
    stderr(
      `turnlog inspect: wrote ${exported.records} records (${
        formatBytes(exported.bytes)
      }) of session ${location.id || location.path} to ${file}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

/**
 * The store and location a target names: a path is a file; an id is looked up in the store;
 * with `--last`, the store's newest session.
 */
async function locate(
  values: StoreInspectFlags,
  target: string | undefined,
): Promise<{ store: SessionStore; location: SessionLocation }> {
  const { FileStore, openStore } = await storeModule();
  if (target !== undefined && isPath(target)) {
    await Deno.stat(target).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new TurnlogError("not_found", `No such session file: ${target}`, { cause: error });
    });
    return { store: new FileStore("."), location: { id: "", path: target, createdAt: "" } };
  }
  const store = await openStore({ store: values.store, sessionsDir: values["sessions-dir"] });
  try {
    return { store, location: await found(store, values.last ? undefined : target) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** The session `target` names in `store`, or its newest session when there is no target. */
async function found(store: SessionStore, target: string | undefined): Promise<SessionLocation> {
  if (target !== undefined) return await store.find(target);
  const newest = await store.newest();
  if (newest === undefined) {
    throw new TurnlogError("not_found", `No session in ${store.name} (--last)`);
  }
  return newest;
}

/** A database store's session shown as asked: history, HTML page, JSON or text. */
async function show(
  store: SessionStore,
  target: string | undefined,
  cmd: { values: StoreInspectFlags; out: Sink },
) {
  const { values, out } = cmd;
  const { inspectStoredSession, renderReport, RepairNotForStoreError, reportJsonPieces } =
    await inspectModule();
  if (values.repair) throw new RepairNotForStoreError(store.name);
  const location = await found(store, target);
  if (values.history) {
    // Imported here: the views that do not resume do not load it.
    const { loadSession, normalizeLoaded } = await resumeModule();
    const resumed = normalizeLoaded(await loadSession(location, { store }));
    await printPieces(out, resumed.history.map((item) => visibleJson(item) + "\n"));
    return 0;
  }
  const full = values.full === true;
  const options = {
    commandFor: resumeCommand,
    entries: values.html !== undefined || !values.json || values.entries === true,
    ...(full ? { textLimit: Number.MAX_SAFE_INTEGER } : {}),
  };
  if (values.html !== undefined) {
    // Imported here, as in inspect.ts: the page's modules are for --html alone.
    const { checkHtmlTarget, writeHtmlPage } = await htmlModule();
    await checkHtmlTarget(values.html, location.path);
    await writeHtmlPage(await inspectStoredSession(store, location, options), values.html, {
      full,
    });
    return 0;
  }
  const report = await inspectStoredSession(store, location, options);
  if (values.json) await printPieces(out, [...reportJsonPieces(report), "\n"]);
  else await out(renderReport(report, renderOptions(values, out)));
  return report.healthy ? 0 : 1;
}

/** A database store's sessions, newest first. */
async function list(
  store: SessionStore,
  cmd: { values: StoreInspectFlags; out: Sink },
): Promise<number> {
  const { values, out } = cmd;
  if (values.repair) throw new UsageError("--repair needs a session: an id, a prefix or a path");
  const limit = parsePositiveInt("limit", values.limit) ?? 25;
  const { renderListing } = await inspectModule();
  const listing = await store.list({ limit });
  await out(
    values.json
      ? visibleJson(listing, 2) + "\n"
      : renderListing(listing, renderOptions(values, out)),
  );
  return 0;
}

/**
 * Runs `inspect` where a store decides it (cli/inspect.ts tells when): `--export`, or a
 * session or the listing of a database named by `--store` or `TURNLOG_STORE`; returns the
 * exit code.
 */
export async function inspectInStore(
  values: StoreInspectFlags,
  target: string | undefined,
  out: Sink,
): Promise<number> {
  if (values.export !== undefined) return await exportTo(values, target, values.export);
  const spec = resolveStoreSpec({ store: values.store, sessionsDir: values["sessions-dir"] });
  const { openStore } = await storeModule();
  const store = await openStore(spec);
  const cmd = { values, out };
  try {
    if ((target === undefined && !values.last) || values.list) {
      if (target !== undefined) throw new UsageError("--list takes no session argument");
      return await list(store, cmd);
    }
    return await show(store, target, cmd);
  } finally {
    await store.close();
  }
}
