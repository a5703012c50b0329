/**
 * `deno task archive`: copies every session of every home turnlog reads into the archive,
 * incrementally (`--check` verifies it). A thin shell over src/archive.
 *
 * @module
 */
import {
  archivedViews,
  archiveSessions,
  archiveSources,
  type ArchiveSummary,
  checkArchive,
  resolveArchiveRoot,
} from "../src/archive/mod.ts";
import { formatBytes, formatNumber, plural } from "../src/text/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { openCatalog, updateCatalogOf } from "./_catalog.ts";
import { TASK } from "./_commands.ts";
import { HOME_FLAGS, homeFlagsHelp, homeFlagsSet } from "./_homes.ts";
import { runAsProcess, stderr, stdout } from "./_output.ts";
import { fail } from "./_voice.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} archive [options]

Copies every session file of turnlog's store and of every other tool's home (subagent
files too) into the archive, so that a tool deleting its old sessions loses nothing. Only
what is new is stored: a file that grew adds its new bytes, an unchanged one costs a stat,
one rewritten in place is kept as a new version beside the old. Chunks are compressed (zstd)
and named by their sha256; nothing is ever deleted from the archive. Prints one line.

Options:
  --to DIR             The archive folder (default: $TURNLOG_ARCHIVE, else "archive" beside
                       turnlog's sessions folder)
${homeFlagsHelp((adapter) => `only ${adapter.shortTool}'s sessions (${adapter.home.described})`)}
  --store DIR          turnlog's sessions folder to archive (default: $TURNLOG_STORE, else
                       $TURNLOG_SESSIONS_DIR, else ./sessions)
  --store-only         Only turnlog's sessions folder, no other tool's home
  --check              Verify every chunk and version of the archive instead (changes nothing)
  --no-catalog         Leave the catalog as it is (by default the sessions only in the archive
                       are catalogued after the run, so search and the listings find them)
  -h, --help           Show this help

Restore a session with ${TASK} restore <id>. Exit codes: 0 done (or the archive is right);
1 --check found problems, or another run holds the archive; 2 the command cannot work as given.
`;

/** The summary line: `archived 12 new sessions, 3 grown, ...`. */
export function summaryLine(summary: ArchiveSummary): string {
  const parts = [
    `archived ${plural(summary.newSessions, "new session")}`,
    `${formatNumber(summary.grown)} grown`,
    ...(summary.rewritten > 0
      ? [`${formatNumber(summary.rewritten)} rewritten (new versions)`]
      : []),
    `${formatBytes(summary.newBytes)} new (${formatBytes(summary.storedBytes)} stored)`,
    `${formatNumber(summary.unchanged)} unchanged`,
  ];
  return parts.join(", ");
}

/** Runs the command; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values } = parseFlags(args, {
    to: { type: "string" },
    store: { type: "string" },
    check: { type: "boolean" },
    "store-only": { type: "boolean" },
    "no-catalog": { type: "boolean" },
    ...HOME_FLAGS,
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    stdout(HELP);
    return 0;
  }
  const to = resolveArchiveRoot(values.to);
  if (values.check) {
    const result = await checkArchive(to);
    for (const problem of result.problems) stderr(`turnlog archive: ${problem}\n`);
    const what = `${plural(result.chunks, "chunk")} and ${plural(result.versions, "file version")}`;
    if (result.problems.length > 0) {
      stderr(
        `turnlog archive: ${plural(result.problems.length, "problem")} in ${to} (${what} right)\n`,
      );
      return 1;
    }
    stdout(`turnlog archive: checked ${what} in ${to}: every checksum is right\n`);
    return 0;
  }
  const homes = homeFlagsSet(values);
  if (values["store-only"] && homes.length > 0) {
    throw new UsageError(`--store-only and --${homes[0]} do not go together`);
  }
  const sources = archiveSources({
    homes,
    storeOnly: values["store-only"] === true,
    ...(values.store === undefined ? {} : { store: values.store }),
  });
  const progress = Deno.stderr.isTerminal();
  const summary = await archiveSessions({
    to,
    sources,
    ...(progress
      ? {
        onProgress: ({ sessions, bytesRead }) =>
          stderr(
            `\r\x1b[2Kturnlog archive: ${plural(sessions, "session")}, ${
              formatBytes(bytesRead)
            } read`,
          ),
      }
      : {}),
  });
  if (progress) stderr("\r\x1b[2K");
  for (const { path, reason } of summary.skipped) {
    stderr(`turnlog archive: ${path}: skipped: ${reason}\n`);
  }
  stdout(`turnlog archive: ${summaryLine(summary)}\n`);
  // The sessions only in the archive stay findable: the catalog reads the archive's view now.
  using catalog = openCatalog("archive", values["no-catalog"]);
  if (catalog !== undefined) {
    const views = await archivedViews(values.to);
    await updateCatalogOf("archive", catalog, views.map((view) => ({ ...view, archived: true })));
  }
  return 0;
}

/** The command as the shell runs it (`turnlog archive`): an error is printed, never thrown. */
export async function cli(args: string[]): Promise<number> {
  try {
    return await main(args);
  } catch (error) {
    return fail("archive", error);
  }
}

if (import.meta.main) await runAsProcess(cli);
