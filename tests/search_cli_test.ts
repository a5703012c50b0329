/**
 * `deno task search` as a user runs it: the text view (ids, hits, the commands), `--json`
 * records whose line numbers name the matching lines, exit codes, bad input skipped with one
 * line, terminal safety, and the task's own permissions over the default homes; and every
 * format of the registry on the adapter contract's fixture.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import { run } from "../cli/search.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { ADAPTERS } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { forkHome } from "./_codex_fork_home.ts";
import { threadMatchingLines } from "./_search_oracle.ts";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const SEARCH = fileURLToPath(new URL("../cli/search.ts", import.meta.url));

async function searchCli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await run(args, { out: (t) => void (stdout += t), err: (t) => void (stderr += t) });
  return { code, stdout, stderr };
}

const ID = "019bc0e2-1280-705c-b071-0a2ebd22e0b2";

/** A turnlog store holding one session whose texts are written with JSON escapes. */
async function escapedStore(root: string): Promise<string> {
  const dir = join(root, "2026", "01", "15");
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, `2026-01-15T09-00-00-000Z-${ID}.jsonl`);
  const t = '"timestamp":"2026-01-15T09:00:00.000Z"';
  const lines = [
    `{${t},"type":"session_meta","payload":{"version":1,"id":"${ID}","createdAt":"2026-01-15T09:00:00.000Z","cwd":"/work/cafe","modelProvider":"embedded","model":"scripted","wireApi":"responses","policy":{"approval":"ask-changes"}}}`,
    `{${t},"type":"turn_context","payload":{"runId":"${ID}","model":"scripted","wireApi":"responses","policy":{"approval":"ask-changes"},"resumed":false}}`,
    `{${t},"type":"response_item","payload":{"type":"message","role":"user","content":"the caf\\u00e9 at a\\/b said \\"quoted\\" \\u001b[31mred"}}`,
    `{${t},"type":"response_item","payload":{"type":"message","role":"system","content":"systemonly"}}`,
    `{${t},"type":"response_item","payload":{"type":"message","role":"assistant","content":"Zebra crossing"}}`,
    "{torn without the word",
    `{${t},"type":"response_item", zebra torn`,
  ];
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  return path;
}

Deno.test("search prints each session's hits and the commands that open and continue it", async () => {
  await using dir = await tempDir();
  const home = await writeClaudeHome(join(dir.path, "claude"));
  const { code, stdout, stderr } = await searchCli(["--sessions-dir", home.projects, "modules"]);
  assertEquals(stderr, "");
  assertEquals(code, 0);
  const id = home.sessionId.slice(0, 8);
  assertMatch(stdout, new RegExp(`^${id}  Claude Code  `, "m"));
  assertMatch(stdout, /^ {2}turn \d+, line \d+, (user|assistant|tool call|tool output|summary)/m);
  assert(stdout.includes("  turn 1, line 4, tool output: The code has two **modules**.\n"), stdout);
  // The subagent's line, under its session.
  assert(
    stdout.includes("  turn 1, agent-a1b2c3d line 4, assistant: The code has two **modules**."),
  );
  assert(
    stdout.includes(`open:     ./denow task inspect --sessions-dir ${home.projects} ${id}`),
    stdout,
  );
  assert(stdout.includes(`continue: ./denow task import --sessions-dir ${home.projects} ${id}`));
  assertMatch(stdout, /^1 session, 3 hits of "modules"\n$/m);
});

Deno.test("search --json gives one record per hit, each naming a line that holds the match", async () => {
  await using dir = await tempDir();
  await writeCodexHome(join(dir.path, "codex"));
  await writeClaudeHome(join(dir.path, "claude"));
  const { code, stdout } = await searchCli([
    "--json",
    "--sessions-dir",
    join(dir.path, "codex"),
    "--sessions-dir",
    join(dir.path, "claude"),
    "the",
  ]);
  assertEquals(code, 0);
  const records = stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert(records.length > 3);
  assertEquals(new Set(records.map((r) => r.format)), new Set(["codex", "claude-code"]));
  for (const record of records) {
    for (const key of ["path", "line", "turn", "role", "sessionId", "format", "snippet"]) {
      assert(key in record, `${key} in ${JSON.stringify(record)}`);
    }
    const line = (await Deno.readTextFile(record.path)).split("\n")[record.line - 1]!;
    assert(line.toLowerCase().includes("the"), `${record.path}:${record.line}`);
    const [start, end] = record.marks[0];
    assertEquals(record.snippet.slice(start, end).toLowerCase(), "the");
    assertMatch(record.open, /^\.\/denow task inspect --sessions-dir /);
  }
});

Deno.test("search shows a Codex fork's hits in its parent's part, named by the parent's file and line", async () => {
  await using dir = await tempDir();
  const { paths } = await forkHome(dir.path);
  const parent = paths.parent.split("/").at(-1)!;
  const { code, stdout, stderr } = await searchCli(["--sessions-dir", dir.path, "zebrafish"]);
  assertEquals(code, 0);
  const fork = stdout.slice(stdout.indexOf("01a24701  Codex"), stdout.indexOf("01a24700  Codex"));
  assert(
    fork.includes(
      `  turn 1, inherited from ${parent} line 8, user: run the **zebrafish** count\n` +
        `  turn 1, inherited from ${parent} line 10, tool call exec_command: count **zebrafish**\n`,
    ),
    stdout,
  );
  assert(fork.includes("  turn 1, line 5, user: fork asks about **zebrafish** again\n"), stdout);
  // The parent's turn after the fork point is the parent's alone.
  assert(!fork.includes("narwhal") && stdout.includes("line 22, user: now the narwhal"), stdout);
  assertEquals(
    stderr,
    `turnlog search: ${paths.orphan}:1: its history is not all here (the rollout of thread ` +
      "01a24799-0000-7000-8000-000000000099 is not in this home): searched without it\n",
  );
  const json = await searchCli(["--json", "--sessions-dir", dir.path, "zebrafish"]);
  const records = json.stdout.trim().split("\n").map((line) => JSON.parse(line));
  for (const [name, path] of Object.entries(paths)) {
    const id = path.slice(-42, -6);
    assertEquals(
      records.filter((r) => r.sessionId === id).map((r) => ({ path: r.path, line: r.line })),
      await threadMatchingLines(path, dir.path, ["zebrafish"]),
      name,
    );
  }
});

Deno.test("search finds words written with JSON escapes, and prints them safely", async () => {
  await using dir = await tempDir();
  const path = await escapedStore(dir.path);
  for (const word of ["café", "a/b", '"quoted"', "CAFÉ"]) {
    const { code, stdout } = await searchCli(["--store", dir.path, word]);
    assertEquals(code, 0, word);
    assert(stdout.includes(`turn 1, line 3, user:`), stdout);
  }
  const { stdout, stderr } = await searchCli(["--store", dir.path, "red"]);
  assert(stdout.includes("\\x1b[31m**red**"), stdout);
  assert(!stdout.includes("\x1b"), "no raw escape byte");
  assert(stdout.includes(`continue: ./denow task resume --sessions-dir ${dir.path} --session`));
  assertEquals(stderr, "");
  // A torn line that holds the word is named; one that cannot match is never parsed.
  const zebra = await searchCli(["--store", dir.path, "zebra"]);
  assertEquals(zebra.stderr, `turnlog search: ${path}:7: not a JSON line, skipped\n`);
  assertMatch(zebra.stdout, /line 5, assistant: \*\*Zebra\*\* crossing/);
  // The system prompt is not the conversation.
  assertEquals((await searchCli(["--store", dir.path, "systemonly"])).code, 1);
});

Deno.test("search says when nothing matches (exit 1) and what is wrong with the command (exit 2)", async () => {
  await using dir = await tempDir();
  await escapedStore(dir.path);
  const none = await searchCli(["--store", dir.path, "nothing-like-this"]);
  assertEquals(none, {
    code: 1,
    stdout: "",
    stderr: 'turnlog search: No session holds "nothing-like-this"\n',
  });
  await Deno.writeTextFile(join(dir.path, "a-file.jsonl"), "");
  const cases: [string[], string][] = [
    [[], "Nothing to search for: give a word"],
    [["--regex", "x", "word"], "--regex takes the pattern: give no words with it"],
    [["--regex", "(", "--store", dir.path], "Not a regular expression"],
    [["--limit", "0", "x"], 'Invalid --limit "0"'],
    [["--since", "yesterday", "x"], 'Invalid --since "yesterday"'],
    [["--sessions-dir", join(dir.path, "missing"), "x"], "No such folder"],
    [
      ["--sessions-dir", join(dir.path, "a-file.jsonl"), "x"],
      `Not a folder: ${join(dir.path, "a-file.jsonl")} is a file (--sessions-dir takes the folder`,
    ],
    [["--bogus", "x"], "Unknown option"],
  ];
  for (const [args, message] of cases) {
    const { code, stdout, stderr } = await searchCli(args);
    assertEquals(code, 2, args.join(" "));
    assertEquals(stdout, "");
    assert(stderr.startsWith(`turnlog search: ${message}`), stderr);
    assert(stderr.split("\n").length <= 3 && !/\n\s+at /.test(stderr), stderr);
  }
  const help = await searchCli(["--help"]);
  assertEquals(help.code, 0);
  assertMatch(help.stdout, /^Exit codes: 0 sessions found; 1 none found; 2 /m);
});

Deno.test("search --regex, --limit, --since and --project narrow the sessions", async () => {
  await using dir = await tempDir();
  await escapedStore(dir.path);
  await writeCodexHome(join(dir.path, "codex"));
  const both = ["--store", dir.path, "--sessions-dir", join(dir.path, "codex")];
  const regex = await searchCli(["--store", dir.path, "--regex", "zeb.a\\s+cross"]);
  assertMatch(regex.stdout, /line 5, assistant: \*\*Zebra cross\*\*ing/);
  assertEquals((await searchCli(["--store", dir.path, "--project", "cafe", "zebra"])).code, 0);
  assertEquals((await searchCli(["--store", dir.path, "--project", "elsewhere", "zebra"])).code, 1);
  assertEquals((await searchCli(["--store", dir.path, "--since", "2999-01-01", "zebra"])).code, 1);
  const limited = await searchCli([...both, "--limit", "1", "--regex", "."]);
  assertMatch(
    limited.stdout,
    /^1 session, \d+ hits of the pattern "\." \(the newest 1: --limit for more\)$/m,
  );
});

Deno.test("./denow task search reads the default homes with the task's own permissions", async () => {
  await using dir = await tempDir();
  await writeCodexHome(join(dir.path, ".codex"));
  await writeClaudeHome(join(dir.path, ".claude"));
  await escapedStore(join(dir.path, "store"));
  const task = JSON.parse(await Deno.readTextFile(CONFIG)).tasks.search.command as string;
  assertEquals(task, "deno run -q -P=search cli/search.ts");
  const env = {
    HOME: dir.path,
    TURNLOG_SESSIONS_DIR: join(dir.path, "store"),
    NO_COLOR: "1",
    DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
  };
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=search", SEARCH, "zebra", "--json"],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(output.stdout);
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  assertEquals(JSON.parse(stdout.split("\n")[0]!).line, 5);
  const all = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=search", SEARCH, "the"],
    env,
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder().decode(all.stdout);
  const database = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=search", SEARCH, "zebra"],
    env: { ...env, TURNLOG_STORE: "postgres://u:secret@127.0.0.1:1/db" },
    clearEnv: true,
    stdin: "null",
  }).output();
  assertEquals(
    new TextDecoder().decode(database.stderr),
    "turnlog search: postgres://u@127.0.0.1:1/db: Could not reach the session store: " +
      "connection refused (is the server running?), skipped\n" +
      'turnlog search: No session holds "zebra"\n',
  );
  for (const tool of ["Codex", "Claude Code", "turnlog"]) {
    assert(text.includes(`  ${tool}  `), tool);
  }
  assert(text.includes("./denow task import --codex "), text);
  assert(text.includes("./denow task import --claude "));
});

for (const adapter of ADAPTERS) {
  Deno.test(`search finds ${adapter.tool}'s session by a word of its first prompt: its id, its tool, exactly the oracle's lines`, async () => {
    await using dir = await tempDir();
    const fixture = FIXTURES[adapter.name]!;
    const session = await fixture.write(dir.path);
    const report = await inspectSession(session.path);
    const word = report.session.firstPrompt!.split(/\W+/).find((w) => w.length >= 4)!;
    const at = ["--sessions-dir", session.root];
    const text = await searchCli([...at, word]);
    assertEquals([text.code, text.stderr], [0, ""]);
    const id = session.id.slice(0, 8);
    assertMatch(text.stdout, new RegExp(`^${id} {2}${adapter.shortTool} {2}`, "m"));
    assert(
      text.stdout.includes(`open:     ./denow task inspect --sessions-dir ${session.root} ${id}`),
      text.stdout,
    );
    const json = await searchCli([...at, "--json", word]);
    const records = json.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assertEquals(new Set(records.map((record) => record.format)), new Set([adapter.name]));
    const lines = records.map((record) => record.line);
    assertEquals(lines.toSorted((a, b) => a - b), await fixture.oracle(session.path, [word]));
  });
}
