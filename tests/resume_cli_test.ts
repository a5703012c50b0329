import { RunEventSchema } from "../src/runtime/schemas.ts";
import { collectRecords } from "../src/history/mod.ts";
import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { parseResumeArgs, UsageError } from "../cli/_args.ts";
import { createSession } from "../src/store/mod.ts";
import { cli, cliEvents, exists, folders } from "./_cli.ts";

Deno.test("parseResumeArgs: flags, message, and clear usage errors", () => {
  const args = parseResumeArgs(["--session", "01a2", "--policy", "auto", "read", "notes.txt"]);
  assertEquals([args.session, args.policy, args.message, args.json], [
    "01a2",
    { approval: "auto" },
    "read notes.txt",
    false,
  ]);
  assertEquals(parseResumeArgs(["--wire-api", "chat", "--json", "x"]).wireApi, "chat");
  const usage = (argv: string[], message: string) => {
    try {
      parseResumeArgs(argv);
    } catch (error) {
      assert(error instanceof UsageError);
      assertEquals(error.message, message);
      return;
    }
    throw new Error(`no usage error for ${argv.join(" ")}`);
  };
  usage(["--wire-api", "grpc", "x"], 'Invalid --wire-api "grpc": use "responses" or "chat"');
  usage(["--session", "a", "--last", "x"], "Use one of --session <id>, --last and --fork <id>");
  usage(["--at-turn", "2", "x"], "--at-turn goes with --fork <id>");
  usage(
    ["--fork", "a", "--at-turn", "0", "x"],
    'Invalid --at-turn "0": expected a whole number above 0',
  );
  usage(["--session", "a"], 'A message is required, e.g. ./denow task resume "list the files"');
  usage(["--max-rounds", "0", "x"], 'Invalid --max-rounds "0": expected a whole number above 0');
  usage(["--frobnicate", "x"], "Unknown option '--frobnicate'");
});

Deno.test("CLI: start, continue by prefix and --last; readable output with counts and the command", async () => {
  await using f = await folders();
  const first = await cli([...f.flags, "read notes.txt"]);
  assertEquals(first.code, 0, first.stderr);
  assertMatch(first.stdout, /^New session [0-9a-f-]{36} /);
  assertMatch(first.stdout, /→ read_file \{"path":"notes.txt"\}/);
  assertMatch(first.stdout, /assistant: .*remember the milk/);
  assertMatch(first.stdout, /Records {2}0 before → 8 after/);
  const id = /Session {2}([0-9a-f-]{36})/.exec(first.stdout)![1]!;
  const continueLine =
    /Continue \.\/denow task resume (?:.*)--session ([0-9a-f-]+) "your next message"/
      .exec(first.stdout)!;
  assert(id.startsWith(continueLine[1]!) && continueLine[1]!.length >= 8);

  const second = await cli([...f.flags, "--session", continueLine[1]!, "hello"]);
  assertEquals(second.code, 0, second.stderr);
  assertMatch(second.stdout, new RegExp(`^Resuming session ${id}`));
  assertMatch(second.stdout, /Records {2}8 before → 12 after/);

  const third = await cli([...f.flags, "--last", "--json", "hello"]);
  assertEquals(third.code, 0, third.stderr);
  const events = third.stdout.trim().split("\n").map((line) =>
    RunEventSchema.parse(JSON.parse(line))
  );
  assertEquals(events[0]!.type, "run_started");
  assertEquals((events[0] as { sessionId: string }).sessionId, id);
  assertEquals(events.at(-1)!.type, "run_succeeded");
});

Deno.test("CLI: an unknown, invalid or ambiguous session id exits 2 with one message and creates nothing", async () => {
  await using f = await folders();
  const unknown = await cli([...f.flags, "--session", "01a2ffff", "hello"]);
  assertEquals(unknown.code, 2);
  assertEquals(unknown.stdout, "");
  assertEquals(
    unknown.stderr,
    `turnlog resume: Session not found: no session with id or prefix "01a2ffff" in ${f.sessions}\n` +
      "List the sessions: ./denow task inspect --list\n",
  );
  assert(!(await exists(f.sessions)), "no sessions folder was created");
  const invalid = await cli([...f.flags, "--session", "../../etc", "hello"]);
  assertEquals(invalid.code, 2);
  assertMatch(invalid.stderr, /^turnlog resume: Invalid session id "\.\.\/\.\.\/etc"/);
  assert(!invalid.stderr.includes("    at "), "no stack trace");
  const last = await cli([...f.flags, "--last", "hello"]);
  assertEquals([last.code, last.stderr], [
    2,
    `turnlog resume: No session in ${f.sessions} to continue (--last)\n` +
    "List the sessions: ./denow task inspect --list\n",
  ]);
  assert(!(await exists(f.sessions)));

  const init = {
    cwd: f.workspace,
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses" as const,
    policy: { approval: "auto" as const },
  };
  const a = await createSession(f.sessions, init);
  const b = await createSession(f.sessions, init);
  a.writer.close();
  b.writer.close();
  const before = await Deno.readTextFile(a.location.path);
  const ambiguous = await cli([...f.flags, "--session", a.meta.id.slice(0, 4), "hello"]);
  assertEquals(ambiguous.code, 2);
  assertMatch(
    ambiguous.stderr,
    /^turnlog resume: Ambiguous session id "[0-9a-f]{4}": it matches 2 sessions:/,
  );
  assertEquals(await Deno.readTextFile(a.location.path), before);
});

Deno.test("CLI: a change is denied without a terminal; bad flags exit 2; --help exits 0", async () => {
  await using f = await folders();
  const denied = await cli([...f.flags, "write out.txt with 'x'"]);
  assertEquals(denied.code, 0, denied.stderr);
  assertMatch(denied.stdout, /✗ denied \(no terminal to ask for approval\)/);
  await assertRejects(() => Deno.stat(join(f.workspace, "out.txt")), Deno.errors.NotFound);
  const bad = await cli(["--policy", "yolo", "x"]);
  assertEquals(bad.code, 2);
  assertEquals(bad.stderr.split("\n").slice(1), [
    "Run ./denow task resume --help for the options.",
    "",
  ]);
  assertMatch(bad.stderr, /^turnlog resume: Invalid --policy "yolo"/);
  const help = await cli(["--help"]);
  assertEquals(help.code, 0);
  assertMatch(help.stdout, /^Usage: \.\/denow task resume/);
  assertMatch(help.stdout, /write hello to out\.txt +write_file/);
  assertMatch(help.stdout, /Exit codes: 0 done; 1 failed/);
});

Deno.test("CLI: the no-argument demo kills a child mid-tool and repairs the session", async () => {
  const here = await Deno.makeTempDir({ prefix: "turnlog-demo-test-" });
  const demo = await cli([], here);
  assertEquals(demo.code, 0, demo.stderr);
  assertMatch(demo.stdout, /child process killed \(SIGKILL\) while slow_task was running/);
  assertMatch(demo.stdout, /"type":"function_call","callId":"call_[^"]+","name":"slow_task"/);
  assertMatch(demo.stdout, /Resume repaired the history: 1 tool call had no output/);
  assertMatch(
    demo.stdout,
    /turn 2 \(killed\) +3 records +turn_context, user message, function_call\n/,
  );
  assertMatch(
    demo.stdout,
    /turn 3 \(resumed\) +7 records +turn_context, function_call_output \(synthesized\), user message, function_call, function_call_output, assistant message, run_finished/,
  );
  const path = /total +\d+ records +(\S+\.jsonl)/.exec(demo.stdout)![1]!;
  assertMatch(path, /^sessions\/\d{4}\/\d{2}\/\d{2}\//);
  const prefix = /Next {5}\.\/denow task resume --session (\S+) "read notes\.txt"/.exec(
    demo.stdout,
  )![1]!;
  assertMatch(
    demo.stdout,
    /Kept {5}the session sessions\/.*\n {9}its workspace sessions\/demo-workspace /,
  );
  // The kept session continues, in its recorded workspace, from the folder the demo ran in: a
  // recorded folder is trusted inside the user's home (here, the folder the demo ran in).
  const denoDir = Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno");
  const next = await cli(["--session", prefix, "read notes.txt"], here, {
    HOME: here,
    DENO_DIR: denoDir,
  });
  assertEquals(next.code, 0, next.stderr);
  assertMatch(next.stdout, /read_file\(notes\.txt\) returned 2 lines/);
  const { records, problems } = await collectRecords(join(here, path));
  assertEquals(problems, []);
  assertEquals(
    records.filter((r) =>
      r.type === "response_item" && r.payload.type === "function_call_output" &&
      r.payload.synthesized
    ).length,
    1,
  );
  await Deno.remove(here, { recursive: true });
});

Deno.test("resume --compact-threshold compacts, and the next resume sends the compacted history", async () => {
  await using dir = await folders();
  await Deno.writeTextFile(join(dir.workspace, "big.txt"), "a line of text\n".repeat(600));
  await cliEvents([...dir.flags, "list the files"]);
  const low = ["--last", "--compact-threshold", "2000"];
  const events = await cliEvents([...dir.flags, ...low, "read big.txt"]);
  const compacted = events.find((event) => event.type === "history_compacted");
  assert(compacted?.type === "history_compacted");
  const started = events.find((event) => event.type === "run_started");
  assert(started?.type === "run_started");

  const next = await cliEvents([...dir.flags, ...low, "what did I ask"]);
  const request = next.find((event) => event.type === "model_requested");
  assert(request?.type === "model_requested");
  // The compacted history and the new message; the big output of the turn that was in flight
  // when it compacted is still over the threshold, so this turn compacts again at its start.
  const again = next.find((event) => event.type === "history_compacted");
  assert(again?.type === "history_compacted" && again.when === "turn_start");
  assertEquals(again.itemsBefore, compacted.itemsAfter + 1);
  assertEquals(request.messageCount, again.itemsAfter);
  const answer = next.find((event) => event.type === "run_succeeded");
  assert(answer?.type === "run_succeeded");
  assertMatch(answer.answer, /list the files[\s\S]*read big\.txt[\s\S]*compacted/);
  const { records } = await collectRecords(started.sessionPath, { strict: true });
  assertEquals(answer.recordCount, records.length);
});
