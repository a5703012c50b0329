/**
 * `deno task import`: brings a turnlog session file into a store (a PostgreSQL database many
 * machines share, or a sessions folder) as the same session: its id and every record, in order.
 * A thin shell over `importTurnlogFile` of src/store.
 *
 * @module
 */
import { importTurnlogFile, openStore } from "../src/store/mod.ts";
import { formatNumber } from "../src/text/mod.ts";
import { parseFlags, UsageError } from "./_args.ts";
import { resumeCommand } from "./_commands.ts";
import { stdout } from "./_output.ts";
import { fail } from "./_voice.ts";

/** The help text. */
export const HELP = `Usage: ./denow task import [options] <turnlog session file>

Brings a turnlog session file into a store as the same session: its id and every record,
in order, as the file holds them. The file is only read. A file with a bad line is refused
(repair it first: ./denow task inspect <file> --repair).

Options:
  --store <s>          the store to bring it into: postgres://user:password@host:port/db
                       or a sessions folder (default: $TURNLOG_STORE, else the sessions root)
  --sessions-dir <d>   a sessions folder to bring it into
  -h, --help           this help

Exit codes: 0 imported; 1 the store cannot be reached; 2 bad arguments, a bad file, or a
session with that id already in the store.`;

/** Runs the command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, {
    store: { type: "string" },
    "sessions-dir": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) {
    stdout(HELP + "\n");
    return 0;
  }
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "Name the turnlog session file to import"
        : `Expected one file, got ${positionals.length}: ${positionals.join(" ")}`,
    );
  }
  const store = await openStore({ store: values.store, sessionsDir: values["sessions-dir"] });
  try {
    const { location, records } = await importTurnlogFile(store, positionals[0]!);
    const prefix = await store.shortestUniquePrefix(location.id);
    stdout(
      `Imported session ${location.id} (${formatNumber(records)} records) into ${store.name}\n` +
        `Continue it: ${resumeCommand({ prefix, root: store.name })}\n`,
    );
    return 0;
  } finally {
    await store.close();
  }
}

if (import.meta.main) {
  let code: number;
  try {
    code = await main(Deno.args);
  } catch (error) {
    code = fail("import", error);
  }
  Deno.exit(code);
}
