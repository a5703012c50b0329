/**
 * What a new user meets first: honest model selection, the header naming the model and
 * endpoint that answered, a policy that sticks said aloud, and fork.
 */
import { dirname, join } from "node:path";
import { collectRecords } from "../src/history/mod.ts";
import { loadSession } from "../src/resume/mod.ts";
import type { SessionRecord } from "../src/record/mod.ts";
import { findSession } from "../src/store/mod.ts";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { cli, exists, folders, inspect } from "./_cli.ts";

Deno.test("--model without a key or base URL fails, says what to set, and creates nothing", async () => {
  await using f = await folders();
  const named = await cli([...f.flags, "--model", "gpt-4.1", "hi"]);
  assertEquals([named.code, named.stdout], [2, ""]);
  assertEquals(
    named.stderr.split("\n")[0],
    'turnlog resume: No model API is configured to ask "gpt-4.1" (--model): set OPENAI_API_KEY ' +
      "(and OPENAI_BASE_URL for an OpenAI-compatible server), or use the embedded model " +
      "(--model scripted, or no --model)",
  );
  assertEquals(named.stderr.split("\n").length, 3, "one message, one hint");
  const fromEnv = await cli([...f.flags, "hi"], undefined, { OPENAI_MODEL: "gpt-4o" });
  assertEquals(fromEnv.code, 2);
  assertMatch(fromEnv.stderr, /"gpt-4o" \(OPENAI_MODEL\).*or unset OPENAI_MODEL\)/);
  assert(!(await exists(f.sessions)), "no session was started");
});

Deno.test("the header names the model and endpoint that answered", async () => {
  await using f = await folders();
  const run = await cli([...f.flags, "list the files"]);
  assertEquals(run.code, 0, run.stderr);
  assertMatch(
    run.stdout.split("\n")[0]!,
    /· model scripted \(embedded, http:\/\/127\.0\.0\.1:\d+\/v1\) · responses · policy ask-changes$/,
  );
});

Deno.test("a continued session works in its recorded workspace unless --workspace says otherwise", async () => {
  await using f = await folders();
  await cli([...f.flags, "list the files"]);
  const elsewhere = await Deno.makeTempDir();
  try {
    // A recorded folder is trusted inside the user's home: the folders' base is the home here.
    const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno");
    const home = { HOME: join(f.workspace, ".."), DENO_DIR: denoDir };
    const next = await cli(
      ["--sessions-dir", f.sessions, "--last", "read notes.txt"],
      elsewhere,
      home,
    );
    assertEquals(next.code, 0, next.stderr);
    assertEquals(
      next.stdout.split("\n")[1],
      `workspace ${await Deno.realPath(f.workspace)}: the folder the session was recorded in`,
    );
    assertMatch(next.stdout, /read_file\(notes\.txt\) returned: remember the milk/);
    const there = await cli([
      "--sessions-dir",
      f.sessions,
      "--last",
      "--workspace",
      elsewhere,
      "list the files",
    ]);
    assertEquals(
      there.stdout.split("\n")[1],
      `workspace ${await Deno.realPath(elsewhere)} (its tools work here; the session was ` +
        `recorded in ${await Deno.realPath(f.workspace)}): named with --workspace`,
    );
  } finally {
    await Deno.remove(elsewhere, { recursive: true });
  }
});

Deno.test("a recorded auto policy is said in the header and carried by the Continue command", async () => {
  await using f = await folders();
  const first = await cli([...f.flags, "--policy", "auto", "write hello to out.txt"]);
  assertEquals(first.code, 0, first.stderr);
  assertEquals(await Deno.readTextFile(join(f.workspace, "out.txt")), "hello");
  assertMatch(first.stdout, /Continue \.\/denow task resume .*--policy auto --session [0-9a-f]+ /);
  const second = await cli([...f.flags, "--last", "read out.txt"]);
  assertEquals(second.code, 0, second.stderr);
  assertMatch(
    second.stdout.split("\n")[2]!,
    /^Policy auto \(recorded in this session\): tools run without asking; --policy ask-changes asks again\.$/,
  );
  assertMatch(second.stdout, /Continue .*--policy auto /);
  const asked = await cli([...f.flags, "--last", "--policy", "ask-changes", "hello"]);
  assert(!asked.stdout.includes("Policy auto"), asked.stdout);
  assert(!asked.stdout.includes("--policy"), "the default policy needs no flag");
});

/** The session id a CLI run printed. */
function sessionIdOf(run: { code: number; stdout: string; stderr: string }): string {
  assertEquals(run.code, 0, run.stderr);
  return /Session {2}([0-9a-f-]{36})/.exec(run.stdout)![1]!;
}

/** The records of a session file, by id. */
async function recordsOf(sessions: string, id: string): Promise<SessionRecord[]> {
  return (await collectRecords((await findSession(sessions, id)).path)).records;
}

Deno.test("fork --at-turn: a new session from the turns before N; the original's bytes untouched", async () => {
  await using f = await folders();
  const originalId = sessionIdOf(await cli([...f.flags, "read notes.txt"]));
  await cli([...f.flags, "--last", "list the files"]);
  const originalPath = (await findSession(f.sessions, originalId)).path;
  const before = await Deno.readFile(originalPath);

  const fork = await cli([
    ...f.flags,
    "--fork",
    originalId.slice(0, 8),
    "--at-turn",
    "2",
    "what did I ask?",
  ]);
  assertEquals(fork.code, 0, fork.stderr);
  assertMatch(
    fork.stdout,
    new RegExp(
      `^Forked session \\S+ from ${originalId} \\(the turns before turn 2\\); the original is unchanged`,
    ),
  );
  assertEquals(
    await Deno.readFile(originalPath),
    before,
    "the original file is byte-for-byte the same",
  );

  const forkId = /Session {2}([0-9a-f-]{36})/.exec(fork.stdout)![1]!;
  assert(forkId !== originalId);
  const records = await recordsOf(f.sessions, forkId);
  const meta = records[0]!;
  assertEquals(meta.type, "session_meta");
  assertEquals((meta.payload as { forkedFrom?: unknown }).forkedFrom, {
    sessionId: originalId,
    turn: 2,
  });
  // The fork remembers turn 1 only: the recall lists one earlier message.
  assertMatch(fork.stdout, /Before this message you asked me 1 thing:\n1\. read notes\.txt/);
  const history = (await loadSession(await findSession(f.sessions, forkId))).replayed;
  const users = history.filter((item) => item.type === "message" && item.role === "user");
  const shown = await inspect(["--sessions-dir", f.sessions, forkId]);
  assertMatch(
    shown.stdout,
    new RegExp(`\n  forked +from ${originalId} \\(the turns before turn 2\\)\n`),
  );
  const listed = await inspect(["--sessions-dir", f.sessions, "--list"]);
  assertMatch(
    listed.stdout,
    new RegExp(`\\(fork of ${originalId.slice(0, 8)}\\) read notes\\.txt`),
  );
  assertEquals(users.map((item) => item.type === "message" ? item.content : ""), [
    "read notes.txt",
    "what did I ask?",
  ]);
});

Deno.test("fork without --at-turn keeps every turn; a turn past the end and an unknown id are usage errors", async () => {
  await using f = await folders();
  const id = sessionIdOf(await cli([...f.flags, "read notes.txt"]));
  const all = await cli([...f.flags, "--fork", id, "what did I ask?"]);
  assertEquals(all.code, 0, all.stderr);
  assertMatch(all.stdout, /\(every turn\)/);
  assertMatch(all.stdout, /1\. read notes\.txt/);
  const past = await cli([...f.flags, "--fork", id, "--at-turn", "5", "x"]);
  assertEquals(past.code, 2);
  assertMatch(past.stderr, /^turnlog resume: No turn 5 to fork at: the session has \d turn\(s\)/);
  const unknown = await cli([...f.flags, "--fork", "ffffffff", "x"]);
  assertEquals(unknown.code, 2);
  assertMatch(unknown.stderr, /^turnlog resume: Session not found/);
});

Deno.test("deno run cli/inspect.ts without flags: one line with the command that works, which does", async () => {
  const repo = new URL("..", import.meta.url).pathname;
  const run = async (args: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args,
      cwd: repo,
      stdin: "null",
      env: { NO_COLOR: "1" },
    }).output();
    const text = new TextDecoder();
    return {
      code: output.code,
      stdout: text.decode(output.stdout),
      stderr: text.decode(output.stderr),
    };
  };
  const bare = await run(["run", "cli/inspect.ts", "019bc14f"]);
  assertEquals(bare.code, 2);
  // The Deno that ./denow installed is named the way it runs: ./denow (no deno on PATH needed).
  const deno = Deno.execPath().startsWith(`${repo}.denow/`) ? "./denow" : "deno";
  assertEquals(bare.stderr.split("\n"), [
    "turnlog inspect: needs permission to read sessions and read the variable TURNLOG_SESSIONS_DIR and read turnlog's own code",
    // Its own code too: the inspector is loaded late (src/_late.ts), and Deno asks for it then.
    `Run: ${deno} run --allow-read=sessions,. --allow-env=TURNLOG_SESSIONS_DIR cli/inspect.ts 019bc14f   (or ./denow task inspect ...)`,
    "",
  ]);
  const suggested = bare.stderr.split("\n")[1]!.replace(/^Run: /, "").replace(/ {3}\(or .*$/, "");
  // As shown, by a shell in the repository, with no deno on PATH but the one running this.
  const works = await new Deno.Command("sh", {
    args: ["-c", suggested],
    cwd: repo,
    stdin: "null",
    env: { NO_COLOR: "1", PATH: `${dirname(Deno.execPath())}:/usr/bin:/bin` },
  }).output();
  const said = new TextDecoder().decode(works.stdout);
  assertEquals(works.code, 0, new TextDecoder().decode(works.stderr));
  assertMatch(said, /^Session 019bc14f-ef80-750e-87c5-0fd53d472f23 {2}healthy\n/);
});
