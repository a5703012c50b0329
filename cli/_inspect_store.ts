/**
 * `inspect` on a store: a database's sessions listed, shown (text, JSON, history, HTML) and
 * exported as JSONL (`--export FILE`, from any store); repair refused there, as a database keeps
 * whole records. A folder given by `--store` or `TURNLOG_STORE` is handed to the files flow as
 * its sessions root.
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import {
  inspectStoredSession,
  renderListing,
  type RenderOptions,
  renderReport,
  RepairNotForStoreError,
  reportJsonPieces,
} from "../src/inspect/mod.ts";
import { loadSession, normalizeLoaded } from "../src/resume/mod.ts";
import {
  exportSession,
  FileStore,
  isPostgresUrl,
  openStore,
  resolveStoreSpec,
  type SessionLocation,
  type SessionStore,
  STORE_ENV,
} from "../src/store/mod.ts";
import { colorEnabled, formatBytes } from "../src/text/mod.ts";
import { parsePositiveInt, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { checkHtmlTarget, writeHtmlPage } from "./_html.ts";
import { stderr, stdout } from "./_output.ts";

/** The inspect flags this module reads (it may set `sessions-dir`). */
export interface StoreInspectFlags {
  store?: string | undefined;
  "sessions-dir"?: string | undefined;
  export?: string | undefined;
  list?: boolean | undefined;
  limit?: string | undefined;
  json?: boolean | undefined;
  entries?: boolean | undefined;
  full?: boolean | undefined;
  history?: boolean | undefined;
  html?: string | undefined;
  repair?: boolean | undefined;
}

const isPath = (target: string) =>
  target.includes("/") || target.includes("\\") || target.endsWith(".jsonl");

/** Prints text given in pieces, a few at a time, never as one string. */
function printPieces(pieces: Iterable<string>): void {
  let pending = "";
  for (const piece of pieces) {
    pending += piece;
    if (pending.length >= 1 << 16) {
      stdout(pending);
      pending = "";
    }
  }
  stdout(pending);
}

function renderOptions(values: StoreInspectFlags): RenderOptions {
  const full = values.full === true;
  return {
    color: colorEnabled(),
    ...(full ? { textChars: Number.MAX_SAFE_INTEGER, textLines: Number.MAX_SAFE_INTEGER } : {}),
  };
}

/** `--export FILE`: the session's stored records, one a line, from any store. */
async function exportTo(values: StoreInspectFlags, target: string | undefined, file: string) {
  if (target === undefined || values.list) {
    throw new UsageError("--export needs a session: an id, a prefix or a path");
  }
  for (const flag of ["json", "entries", "history", "repair", "html"] as const) {
    if (values[flag]) throw new UsageError(`--export does not go with --${flag}`);
  }
  if (file === "" || file === "-") throw new UsageError("--export needs a file name");
  const { store, location } = await locate(values, target);
  try {
    if (store instanceof FileStore && location.path === file) {
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

/** The store and location a target names: a path is a file; an id is looked up in the store. */
async function locate(
  values: StoreInspectFlags,
  target: string,
): Promise<{ store: SessionStore; location: SessionLocation }> {
  if (isPath(target)) {
    await Deno.stat(target).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
      throw new TurnlogError("not_found", `No such session file: ${target}`, { cause: error });
    });
    return { store: new FileStore("."), location: { id: "", path: target, createdAt: "" } };
  }
  const store = await openStore({ store: values.store, sessionsDir: values["sessions-dir"] });
  try {
    return { store, location: await store.find(target) };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** A database store's session shown as asked: history, HTML page, JSON or text. */
async function show(store: SessionStore, target: string, values: StoreInspectFlags) {
  if (values.repair) throw new RepairNotForStoreError(store.name);
  const location = await store.find(target);
  if (values.history) {
    const resumed = normalizeLoaded(await loadSession(location, { store }));
    printPieces(resumed.history.map((item) => JSON.stringify(item) + "\n"));
    return 0;
  }
  const full = values.full === true;
  const options = {
    commandFor: resumeCommand,
    entries: values.html !== undefined || !values.json || values.entries === true,
    ...(full ? { textLimit: Number.MAX_SAFE_INTEGER } : {}),
  };
  if (values.html !== undefined) {
    await checkHtmlTarget(values.html, location.path);
    await writeHtmlPage(await inspectStoredSession(store, location, options), values.html, {
      full,
    });
    return 0;
  }
  const report = await inspectStoredSession(store, location, options);
  if (values.json) printPieces([...reportJsonPieces(report), "\n"]);
  else stdout(renderReport(report, renderOptions(values)));
  return report.healthy ? 0 : 1;
}

/** A database store's sessions, newest first. */
async function list(store: SessionStore, values: StoreInspectFlags): Promise<number> {
  if (values.repair) throw new UsageError("--repair needs a session: an id, a prefix or a path");
  const limit = parsePositiveInt("limit", values.limit) ?? 25;
  const listing = await store.list({ limit });
  stdout(
    values.json
      ? JSON.stringify(listing, null, 2) + "\n"
      : renderListing(listing, renderOptions(values)),
  );
  return 0;
}

/**
 * Runs `inspect` where a store decides it: `--export`, or a database named by `--store` or
 * `TURNLOG_STORE` (a path still names a file); returns the exit code, or undefined when the
 * files flow runs instead (with `--sessions-dir` set to the folder `--store` or
 * `TURNLOG_STORE` names).
 */
export async function inspectInStore(
  values: StoreInspectFlags,
  target: string | undefined,
): Promise<number | undefined> {
  if (values.export !== undefined) return await exportTo(values, target, values.export);
  const spec = resolveStoreSpec({ store: values.store, sessionsDir: values["sessions-dir"] });
  if (!isPostgresUrl(spec)) {
    const named = values.store !== undefined || Deno.env.get(STORE_ENV);
    if (named && values["sessions-dir"] === undefined) values["sessions-dir"] = spec;
    return undefined;
  }
  if (target !== undefined && isPath(target)) return undefined;
  const store = await openStore(spec);
  try {
    if (target === undefined || values.list) {
      if (target !== undefined) throw new UsageError("--list takes no session argument");
      return await list(store, values);
    }
    return await show(store, target, values);
  } finally {
    await store.close();
  }
}
