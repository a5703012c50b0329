/**
 * The commands on a PostgreSQL store, as a user runs them: `--store` and `TURNLOG_STORE` on
 * resume, inspect (show, list, history, export), import and serve, and their errors in one
 * voice. Skipped (and said so) when the PostgreSQL server binaries are not installed.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { cli, folders, inspect, type Ran } from "./_cli.ts";
import { fileCluster } from "./_postgres_helpers.ts";
import { InspectReportSchema, SessionListingSchema } from "../src/inspect/schemas.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";

const cluster = await fileCluster("store_cli_test.ts");
const ignore = cluster === undefined;

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** Runs a CLI file of this project with its task's permissions. */
async function run(file: string, permissions: string, args: string[]): Promise<Ran> {
  const path = fileURLToPath(new URL(`../cli/${file}`, import.meta.url));
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${CONFIG}`, "-q", `-P=${permissions}`, path, ...args],
    stdin: "null",
    env: { NO_COLOR: "1", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" },
  }).output();
  const decoder = new TextDecoder();
  return {
    code: output.code,
    stdout: decoder.decode(output.stdout),
    stderr: decoder.decode(output.stderr),
  };
}

/** A loopback URL nobody listens on. */
function refusedUrl(): { url: string; shown: string } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return {
    url: `postgres://app:hunter2@127.0.0.1:${port}/turnlog`,
    shown: `postgres://app@127.0.0.1:${port}/turnlog`,
  };
}

Deno.test({
  name: "resume --store: a session started in one process continues in another",
  ignore,
  fn: async () => {
    const url = await cluster!.createDatabase();
    await using f = await folders();
    const flags = ["--store", url, "--workspace", f.workspace];
    const first = await cli([...flags, "list the files"]);
    assertEquals(first.code, 0, first.stderr);
    const name = new PostgresStore(url).name;
    const continued = /Continue \.\/denow task resume --store (\S+) .*--session (\S+) /.exec(
      first.stdout,
    );
    assertStrictEquals(continued?.[1], name);
    const second = await cli([...flags, "--session", continued![2]!, "what did I ask?"]);
    assertEquals(second.code, 0, second.stderr);
    assertMatch(second.stdout, /Before this message you asked me 1 thing:\n\s*1\. list the files/);
    // With TURNLOG_STORE, the same store needs no flag, and the printed command shows none.
    const env = { TURNLOG_STORE: url };
    const third = await cli(["--workspace", f.workspace, "--last", "what did I ask?"], ".", env);
    assertEquals(third.code, 0, third.stderr);
    assertMatch(third.stdout, /you asked me 2 things/);
    assertMatch(third.stdout, /Continue \.\/denow task resume --session \S+ "/);
    // A fork in the database: a new session from the history; the listing says where from.
    const id = /Session {2}(\S+)/.exec(first.stdout)![1]!;
    const fork = await cli([...flags, "--fork", continued![2]!, "what did I ask?"]);
    assertEquals(fork.code, 0, fork.stderr);
    assertMatch(fork.stdout, new RegExp(`^Forked session \\S+ from ${id} \\(every turn\\)`));
    assertMatch(fork.stdout, /you asked me 3 things/);
    const listed = SessionListingSchema.parse(
      JSON.parse((await inspect(["--list", "--json", "--store", url])).stdout),
    );
    assertEquals(listed.sessions.map((s) => s.forkedFrom), [id, null]);
    // Nothing went to a sessions folder.
    assertEquals(await Array.fromAsync(Deno.readDir(f.sessions)).catch(() => []), []);
  },
});

Deno.test({
  name: "inspect --store shows, lists and exports a stored session; import brings it back in",
  ignore,
  fn: async () => {
    const url = await cluster!.createDatabase();
    await using f = await folders();
    const started = await cli(["--store", url, "--workspace", f.workspace, "read notes.txt"]);
    assertEquals(started.code, 0, started.stderr);
    const id = /Session {2}(\S+)/.exec(started.stdout)![1]!;
    const shown = await inspect([id.slice(0, 13), "--store", url]);
    assertEquals(shown.code, 0, shown.stderr);
    assertMatch(shown.stdout, new RegExp(`^Session ${id}  healthy\n`));
    const report = InspectReportSchema.parse(JSON.parse(
      (await inspect([id, "--json"], {
        TURNLOG_STORE: url,
      })).stdout,
    ));
    assertEquals([report.session.id, report.totals.turns], [id, 1]);
    const listed = await inspect(["--list", "--json", "--store", url]);
    const listing = SessionListingSchema.parse(JSON.parse(listed.stdout));
    assertEquals(listing.sessions.map((s) => [s.id, s.firstUserMessage]), [[id, "read notes.txt"]]);
    const history = await inspect([id, "--history", "--store", url]);
    assertEquals(
      history.stdout.trim().split("\n").map((l) => JSON.parse(l).type).at(-1),
      "message",
    );

    const file = join(f.workspace, "exported.jsonl");
    const exported = await inspect([id, "--store", url, "--export", file]);
    assertEquals(exported.code, 0, exported.stderr);
    assertMatch(
      exported.stderr,
      new RegExp(`^turnlog inspect: wrote \\d+ records .* to ${file}\n$`),
    );
    const stored: string[] = [];
    await using store = new PostgresStore(url);
    for await (const entry of store.read(await store.find(id))) stored.push(entry.text);
    assertEquals(await Deno.readTextFile(file), stored.map((t) => t + "\n").join(""));

    const again = await run("import.ts", "import", [file, "--store", url]);
    assertEquals([again.code, again.stderr], [
      2,
      `turnlog import: Session already exists: ${id} in ${store.name}\n` +
      "Run ./denow task import --help for the options.\n",
    ]);
    const other = await cluster!.createDatabase();
    const imported = await run("import.ts", "import", [file, "--store", other]);
    assertEquals(imported.code, 0, imported.stderr);
    assertMatch(
      imported.stdout,
      new RegExp(`^Imported session ${id} \\(${stored.length} records\\)`),
    );
    const copy = await inspect([id, "--store", other, "--export", join(f.workspace, "copy.jsonl")]);
    assertEquals(copy.code, 0, copy.stderr);
    assertEquals(
      await Deno.readTextFile(join(f.workspace, "copy.jsonl")),
      await Deno.readTextFile(file),
    );
    // A session file goes into a folder the same way, and out again line for line.
    const intoFolder = await run("import.ts", "import", [file, "--sessions-dir", f.sessions]);
    assertEquals(intoFolder.code, 0, intoFolder.stderr);
    const back = await inspect([
      id,
      "--sessions-dir",
      f.sessions,
      "--export",
      join(f.workspace, "b.jsonl"),
    ]);
    assertEquals(back.code, 0, back.stderr);
    assertEquals(
      await Deno.readTextFile(join(f.workspace, "b.jsonl")),
      await Deno.readTextFile(file),
    );
  },
});

Deno.test({
  name: "inspect --repair on a database says that repair is for session files",
  ignore,
  fn: async () => {
    const url = await cluster!.createDatabase();
    await using f = await folders();
    const started = await cli(["--store", url, "--workspace", f.workspace, "hello"]);
    const id = /Session {2}(\S+)/.exec(started.stdout)![1]!;
    const name = new PostgresStore(url).name;
    const ran = await inspect([id, "--repair", "--store", url]);
    assertEquals([ran.code, ran.stdout], [2, ""]);
    assertStrictEquals(
      ran.stderr,
      `turnlog inspect: Repair is for session files: ${name} keeps whole records only (an append commits whole or not at all), so it has no torn or bad lines to repair\n` +
        "Run ./denow task inspect --help for the options.\n",
    );
  },
});

Deno.test("the commands say in one voice that the store cannot be reached, or is not a store", async () => {
  const { url, shown } = refusedUrl();
  const reason =
    `Could not reach the session store at ${shown}: connection refused (is the server running?)`;
  const hint =
    "Check that the database is up and the URL (--store or TURNLOG_STORE) is postgres://user:password@host:port/database.";
  const cases: [string, string, string[]][] = [
    ["resume", "resume", ["--store", url, "hello"]],
    ["inspect", "inspect", ["--list", "--store", url]],
    ["serve", "serve", ["--store", url, "--port", "0"]],
  ];
  for (const [command, permissions, args] of cases) {
    const ran = await run(`${command}.ts`, permissions, args);
    assertEquals(
      [ran.code, ran.stderr],
      [1, `turnlog ${command}: ${reason}\n${hint}\n`],
      `${command} ${args.join(" ")}`,
    );
    assert(!ran.stdout.includes("hunter2") && !ran.stderr.includes("hunter2"));
  }
  const bad = await run("resume.ts", "resume", ["--store", "mysql://db/turnlog", "hello"]);
  assertEquals([bad.code, bad.stderr], [
    2,
    'turnlog resume: Unknown store "mysql://...": give a postgres:// URL or a sessions folder\n' +
    "Run ./denow task resume --help for the options.\n",
  ]);
  const both = await run("serve.ts", "serve", ["--store", url, "--sessions-dir", "x"]);
  assertEquals([both.code, both.stderr], [
    2,
    "turnlog serve: --store and --sessions-dir do not go together: --store takes a folder too\n" +
    "Run ./denow task serve --help for the options.\n",
  ]);
});
