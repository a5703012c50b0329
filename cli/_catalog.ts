/**
 * The catalog as the commands open it: at `TURNLOG_CATALOG` or in turnlog's data folder, not
 * at all with `--no-catalog`; a catalog made again says so in one line, and a first build of
 * a big home shows its progress on a terminal (files and MB), later runs are silent. A listing
 * brings the facts up to date alone; a search the full-text index too, which its first run
 * builds (saying so, with its progress on a terminal).
 *
 * @module
 */
import type { CatalogSource, UpdateProgress, UpdateSummary } from "../src/catalog/mod.ts";
// The catalog itself, not its face (which holds the indexing too): a command answered from a
// catalog already up to date loads no reader (the update loads them when a file changed).
import { Catalog } from "../src/catalog/_catalog.ts";
import { formatBytes } from "../src/text/mod.ts";
import { stderr } from "./_output.ts";
import type { Command } from "./_voice.ts";

/** The flag that reads the files as without a catalog, and its line in `--help`. */
export const NO_CATALOG_HELP =
  "  --no-catalog         Read the files themselves, not the catalog (TURNLOG_CATALOG moves it)";

/** An update reads this many bytes or more before it shows its progress. */
const LOUD_BYTES = 64 << 20;

/**
 * Opens the catalog for `command`, or undefined with `--no-catalog`. A catalog that is
 * damaged or of another version is made again, in one line on stderr.
 */
export function openCatalog(command: Command, noCatalog: boolean | undefined): Catalog | undefined {
  if (noCatalog) return undefined;
  return Catalog.open({ onRebuilt: (line) => stderr(`turnlog ${command}: ${line}\n`) });
}

/**
 * Shows an update's progress on a terminal when it reads much; quiet otherwise. `text`: the
 * update builds the full-text index (a search's).
 */
export function progressOn(command: Command, text = false): (progress: UpdateProgress) => void {
  if (!Deno.stderr.isTerminal()) return () => {};
  let shown = false;
  let last = 0;
  return (progress) => {
    if (!shown && progress.bytesTotal < LOUD_BYTES) return;
    const now = Date.now();
    const done = progress.files === progress.filesTotal;
    if (shown && !done && now - last < 200) return;
    shown = true;
    last = now;
    stderr(
      `\rturnlog ${command}: ${text ? "indexing" : "cataloguing"} ` +
        `${progress.files}/${progress.filesTotal} files${text ? " for search" : ""}, ` +
        `${formatBytes(progress.bytes)} of ${formatBytes(progress.bytesTotal)}` +
        (done ? "\n" : ""),
    );
  };
}

/**
 * Brings the catalog up to date for `sources`, showing the progress of a big first build: the
 * facts a listing shows alone, unless `text` (a search) asks for the full-text index too.
 */
export function updateCatalogOf(
  command: Command,
  catalog: Catalog,
  sources: readonly CatalogSource[],
  options: { text?: boolean } = {},
): Promise<UpdateSummary> {
  const text = options.text ?? false;
  return catalog.update(sources, { text, onProgress: progressOn(command, text) });
}
