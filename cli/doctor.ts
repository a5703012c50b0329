/**
 * `turnlog doctor` (`./denow task doctor`): one screen over every home turnlog knows (its
 * adapters' tools), for what needs the user. A thin shell over src/doctor.
 *
 * @module
 */
import { errorMessage, outcomeOf } from "../src/errors/mod.ts";
import { examineHomes, renderDoctor } from "../src/doctor/mod.ts";
import { ADAPTERS, foreignToolsInWords } from "../src/formats/mod.ts";
import { shellQuote } from "../src/text/mod.ts";
import { parseFlags } from "./_args.ts";
import { TASK } from "./_commands.ts";
import { runAsProcess, stderr as toStderr, stdout as toStdout, type Write } from "./_output.ts";
import { hintFor } from "./_voice.ts";
import { openCatalog, progressOn } from "./_catalog.ts";

/** The help text. */
export const HELP = `Usage: ${TASK} doctor [--json]

Looks over every home turnlog knows (${foreignToolsInWords("and")}) and says, per home:
the tools' versions seen; the sessions their tool would not resume as they are, with the
command that repairs each; record types turnlog has never seen, per tool version (a format
changing before it bites); the sessions the tool's own cleanup deletes within 7 days (Claude
Code: cleanupPeriodDays of its settings.json, else 30 days), with the command that archives
them; and the disk each home uses. The catalog lists the sessions and keeps what was read of
each: a session file is read again only when it changed. Homes: ${
  ADAPTERS.map((adapter) => adapter.home.described).join("; ")
}.

Options:
  --json       The report as one JSON object: {at, homes: [{format, tool, root, exists,
               sessions, bytes, versions, unresumable, passedOver, drift, fields,
               moreFields, retention, expiring, unreadable}], needsUser}
  --no-catalog Read the files themselves, not the catalog (TURNLOG_CATALOG moves it)
  -h, --help   Show this help

Exit codes: 0 nothing needs you; 1 something does; 2 the command cannot work as given.
`;

/** Where the doctor writes. */
export interface DoctorIo {
  out: Write;
  err: Write;
}

async function main(args: string[], io: DoctorIo): Promise<number> {
  const { values } = parseFlags(args, {
    json: { type: "boolean" },
    "no-catalog": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  using catalog = openCatalog("doctor", values["no-catalog"]);
  const report = await examineHomes({ catalog, onProgress: progressOn("doctor") });
  if (values.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else {
    io.out(renderDoctor(report, {
      repair: (path) => `${TASK} repair --write ${shellQuote(path)}`,
      archive: () => `${TASK} archive`,
    }));
  }
  return report.needsUser ? 1 : 0;
}

/**
 * Runs the command as the shell does: the report to `io.out`, an error as one message and a
 * hint to `io.err` (never a stack trace); returns the exit code.
 */
export async function run(
  args: string[],
  io: DoctorIo = { out: toStdout, err: toStderr },
): Promise<number> {
  try {
    return await main(args, io);
  } catch (error) {
    const hint = hintFor("doctor", error);
    io.err(`turnlog doctor: ${errorMessage(error)}\n${hint === undefined ? "" : `${hint}\n`}`);
    return outcomeOf(error).exitCode;
  }
}

/** The command as a shell (or the `turnlog` command) runs it; returns the exit code. */
export function cli(args: string[]): Promise<number> {
  return run(args);
}

if (import.meta.main) await runAsProcess(cli);
