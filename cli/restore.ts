/**
 * `deno task restore`: writes an archived session back into its tool's home, byte for byte,
 * or into a project that moved (`--cwd`); `--list` lists the archive. A thin shell over
 * src/archive.
 *
 * @module
 */
import {
  archiveLayout,
  listArchived,
  readIndex,
  resolveArchiveRoot,
  restoreSession,
} from "../src/archive/mod.ts";
import { adapterOfData, type SessionFormat } from "../src/formats/mod.ts";
import { formatBytes, formatTime, plural, shellQuote } from "../src/text/mod.ts";
import { parseFlags, parsePositiveInt, UsageError } from "./_args.ts";
import { TASK } from "./_commands.ts";
import { runAsProcess, stdout } from "./_output.ts";
import { fail } from "./_voice.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} restore [options] <session id | id prefix | path>
       ${TASK} restore --list

Writes an archived session back where its tool keeps it (its subagent files too), byte for
byte as archived: the latest version, or the one --version names. A file already there with
the same bytes is left as it is; a different file is never written over (exit 2).

Options:
  --version N          The version of the session's file (see --list; default: the latest)
  --home DIR           Restore into this home instead: the tool's home folder (the one that
                       holds its sessions, as ~/.claude holds projects), or turnlog's sessions
                       folder (another machine's, or a copy)
  --cwd DIR            The project moved to DIR: the session is restored as the tool would
                       have written it there (the fields that name the folder rewritten,
                       and listed)
  --from DIR           The archive folder (default: $TURNLOG_ARCHIVE, else "archive" beside
                       turnlog's sessions folder)
  --list               List the archived sessions, newest first, and which are only in the
                       archive
  -h, --help           Show this help

Exit codes: 0 restored (or already there); 2 the command cannot work as given (usage,
unknown or ambiguous session, a different file in the way).
`;

async function list(from: string): Promise<number> {
  const listed = await listArchived(await readIndex(archiveLayout(from)));
  if (listed.length === 0) {
    stdout(`turnlog restore: the archive ${from} holds no session yet (${TASK} archive)\n`);
    return 0;
  }
  const lines = listed.map(({ session, original, present }) => {
    const latest = session.versions.at(-1)!;
    const tool = adapterOfData({ format: session.format as SessionFormat }).tool;
    const versions = session.versions.length > 1
      ? `, ${plural(session.versions.length, "version")}`
      : "";
    const where = present ? original : `${original} (only in the archive)`;
    const time = formatTime(new Date(latest.mtime).toISOString());
    return `${session.id}  ${tool}  ${time}  ${formatBytes(latest.size)}${versions}\n  ${where}\n`;
  });
  const gone = listed.filter((entry) => !entry.present).length;
  stdout("Archived sessions, newest first: id, tool, last written, size; below, its file\n");
  stdout(lines.join(""));
  stdout(`${plural(listed.length, "archived session")}, ${gone} only in the archive\n`);
  return 0;
}

/** Runs the command; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parseFlags(args, {
    version: { type: "string" },
    home: { type: "string" },
    cwd: { type: "string" },
    from: { type: "string" },
    list: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    stdout(HELP);
    return 0;
  }
  const from = resolveArchiveRoot(values.from);
  if (values.list) {
    if (positionals.length > 0) throw new UsageError("--list takes no session");
    return await list(from);
  }
  if (positionals.length !== 1) {
    throw new UsageError(`Expected one session: an id, an id prefix or the path it had`);
  }
  const version = parsePositiveInt("version", values.version);
  const restored = await restoreSession(positionals[0]!, {
    from,
    ...(version === undefined ? {} : { version }),
    ...(values.home === undefined ? {} : { home: values.home }),
    ...(values.cwd === undefined ? {} : { cwd: values.cwd }),
  });
  const { session } = restored;
  const tool = adapterOfData({ format: session.format as SessionFormat }).tool;
  const of = `version ${restored.version} of ${session.versions.length}`;
  for (const [i, file] of restored.files.entries()) {
    const what = i === 0 ? `${tool} session ${session.id} (${of})` : "its subagent file";
    stdout(
      file.status === "written"
        ? `turnlog restore: restored ${what} to ${file.path}\n`
        : `turnlog restore: ${file.path} is already there with the same bytes (${what})\n`,
    );
  }
  if (restored.fields.size > 0) {
    const fields = [...restored.fields].map(([field, lines]) =>
      `${field} (${plural(lines, "line")})`
    );
    stdout(`turnlog restore: rewritten for ${values.cwd}: ${fields.join(", ")}\n`);
  }
  stdout(`Look at it: ${TASK} inspect ${shellQuote(restored.files[0]!.path)}\n`);
  return 0;
}

/** The command as the shell runs it (`turnlog restore`): an error is printed, never thrown. */
export async function cli(args: string[]): Promise<number> {
  try {
    return await main(args);
  } catch (error) {
    return fail("restore", error);
  }
}

if (import.meta.main) await runAsProcess(cli);
