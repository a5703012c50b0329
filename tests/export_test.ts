/**
 * `exportSession` and `turnlog export`: each target's file read back by turnlog's reader holds
 * the source's conversation (records equal), laid out where and as its tool lays it out; the
 * source is only read; nothing is written over a file or half-written; bad input gets one line
 * in turnlog's voice and the exit code of its kind. The real tools judge the files in
 * tests/real_clients/export_suite.ts.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { said } from "./_helpers.ts";
import { exportSession, type ReadConversation, readConversation } from "../src/export/mod.ts";
import { ExportWriteError } from "../src/formats/mod.ts";
import { errorKind } from "../src/errors/mod.ts";
import { examineHomes } from "../src/doctor/mod.ts";
import {
  claudeBasic,
  claudeCompaction,
  claudeDamage,
  claudeForks,
} from "../testing/formats/claude_fixtures.ts";
import { codexOrphans } from "../testing/formats/codex_fixtures.ts";
import { geminiToolSession } from "../testing/formats/gemini_builder.ts";
import { missingInOrder, sentConversation } from "../testing/real_clients/export_judge.ts";

const CLI = fileURLToPath(new URL("../cli/export.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const NOW = new Date(2026, 11, 5, 19, 45, 7);

/** A folder for the test: the tools' homes and the sources. */
async function place(): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.makeTempDir({ prefix: "turnlog-export-test-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

function env(vars: Record<string, string>) {
  return { get: (name: string) => vars[name] };
}

/** A conversation's items as plain data: call ids by order of appearance, arguments parsed. */
function plain(read: ReadConversation): unknown[] {
  const ids = new Map<string, string>();
  const id = (x: string) => ids.get(x) ?? ids.set(x, `call${ids.size}`).get(x)!;
  return read.items.flatMap(({ item }) => {
    switch (item.type) {
      case "message":
        return item.role === "system" ? [] : [[item.role, item.content]];
      case "function_call": {
        let args: unknown = item.arguments;
        try {
          args = JSON.parse(item.arguments);
        } catch {
          // Kept as it was.
        }
        return [["call", id(item.callId), item.name, args]];
      }
      case "function_call_output":
        return [["result", id(item.callId), item.output, item.isError]];
      case "compaction_summary":
        return [["summary", item.content]];
    }
  });
}

async function source(dir: string, name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await Deno.writeTextFile(path, text);
  return path;
}

async function lines(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).trim().split("\n").map((line) => JSON.parse(line));
}

Deno.test("doctor finds nothing turnlog has never seen in a rollout turnlog exported to Codex", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeForks());
  await exportSession(path, {
    to: "codex",
    env: env({ CODEX_HOME: join(at.dir, ".codex") }),
    cwd: at.dir,
    now: NOW,
  });
  const report = await examineHomes({ env: env({ HOME: at.dir }), now: new Date(NOW) });
  const codex = report.homes.find((home) => home.sessions > 0)!;
  assertEquals([codex.sessions, codex.fields, codex.drift], [1, [], []]);
});

Deno.test("exportSession() to Codex writes a rollout Codex resumes, read back item for item", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeForks());
  const before = await Deno.readFile(path);
  const home = join(at.dir, "codex-home");
  const exported = await exportSession(path, {
    to: "codex",
    env: env({ CODEX_HOME: home }),
    cwd: at.dir,
    now: NOW,
  });
  assertEquals(
    exported.path,
    join(home, "sessions", "2026", "12", "05", `rollout-2026-12-05T19-45-07-${exported.id}.jsonl`),
  );
  assertEquals(exported.resume, `codex resume ${exported.id}`);
  const written = await lines(exported.path);
  const meta = written[0]!;
  assertEquals(meta.type, "session_meta");
  assertEquals(Object.keys(meta.payload as object), [
    "id",
    "timestamp",
    "cwd",
    "originator",
    "cli_version",
    "source",
    "turnlog_exported_from",
  ]);
  assertEquals((meta.payload as Record<string, unknown>).turnlog_exported_from, {
    format: "claude-code",
    sessionId: exported.source.sessionId,
    path,
  });
  assert(written.every((line) => typeof line.timestamp === "string"), "every line has a time");
  const prompts = written.filter((line) =>
    line.type === "event_msg" && (line.payload as Record<string, unknown>).type === "user_message"
  );
  assertEquals(prompts.length, exported.carried.userMessages, "a user_message event per prompt");
  const original = await readConversation(path);
  const back = await readConversation(exported.path);
  // The Responses API has no error flag: it is kept in an exec_command_end event, as Codex's
  // own files keep a command's failure, and read back from there.
  assertEquals(plain(back), plain(original));
  const failures = written.filter((line) =>
    (line.payload as Record<string, unknown>).type === "exec_command_end"
  );
  const errors = original.items.filter(({ item }) =>
    item.type === "function_call_output" && item.isError
  );
  assert(errors.length > 0, "the fixture has a failed call");
  assertEquals(
    [
      failures.length,
      exported.degraded.find((d) => d.what === "error flags of tool results")?.count,
    ],
    [errors.length, errors.length],
  );
  assertEquals(
    back.items.map(({ time }) => time),
    original.items.filter(({ item }) => !(item.type === "message" && item.role === "system"))
      .map(({ time }) => time),
    "the source's own times",
  );
  assertEquals(await Deno.readFile(path), before, "the source is only read");
});

Deno.test("exportSession() to Claude Code writes a chained transcript its picker lists", async () => {
  await using at = await place();
  const path = await source(at.dir, "rollout.jsonl", codexOrphans());
  const config = join(at.dir, "claude-config");
  const cwd = join(at.dir, "my project.v2");
  await Deno.mkdir(cwd);
  const exported = await exportSession(path, {
    to: "claude",
    env: env({ CLAUDE_CONFIG_DIR: config }),
    cwd,
  });
  assertEquals(
    exported.path,
    join(config, "projects", cwd.replace(/[^A-Za-z0-9]/g, "-"), `${exported.id}.jsonl`),
  );
  assertEquals(exported.resume, `cd '${cwd}' && claude --resume ${exported.id}`);
  const written = await lines(exported.path);
  let parent: unknown = null;
  for (const line of written) {
    assertEquals(line.parentUuid, parent, "one chain through parentUuid");
    parent = line.uuid;
    assertEquals([line.sessionId, line.cwd, line.entrypoint], [exported.id, cwd, "cli"]);
    assertMatch(String(line.version), /^2\.1\.\d+$/);
  }
  const ids = written.flatMap((line) => {
    const content = (line.message as { content?: unknown })?.content;
    return Array.isArray(content)
      ? content.flatMap((b) =>
        b.type === "tool_use" ? [b.id] : b.type === "tool_result" ? [b.tool_use_id] : []
      )
      : [];
  });
  assert(ids.length > 0 && ids.every((id) => /^[a-zA-Z0-9_-]+$/.test(id)), ids.join(" "));
  const original = await readConversation(path);
  const back = await readConversation(exported.path);
  // tool_use input is an object: arguments that are not one are carried as {input: ...}.
  const wrapped = plain(original).map((item) =>
    Array.isArray(item) && item[0] === "call" && typeof item[3] === "string"
      ? [...item.slice(0, 3), { input: item[3] }]
      : item
  );
  assertEquals(plain(back), wrapped);
  assertEquals(
    exported.degraded.find((d) => d.what === "call arguments that are not a JSON object")?.count,
    plain(original).filter((item) => Array.isArray(item) && typeof item[3] === "string").length,
  );
  assertEquals(
    exported.degraded.find((d) => d.what === "calls the source left without a result")?.count,
    original.synthesized,
  );
  assert(original.synthesized > 0, "the fixture leaves calls unanswered");
});

Deno.test("exportSession() to Gemini CLI writes a session in a registered project folder", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeBasic());
  const home = join(at.dir, "gemini-home");
  const cwd = join(at.dir, "Work Dir");
  await Deno.mkdir(cwd);
  await Deno.mkdir(join(home, ".gemini"), { recursive: true });
  await Deno.writeTextFile(
    join(home, ".gemini", "projects.json"),
    JSON.stringify({ projects: { "/elsewhere": "work-dir" } }),
  );
  const exported = await exportSession(path, {
    to: "gemini",
    env: env({ GEMINI_CLI_HOME: home }),
    cwd,
    now: new Date(Date.UTC(2026, 11, 5, 19, 45)),
  });
  const tmp = join(home, ".gemini", "tmp");
  assertEquals(
    exported.path,
    join(tmp, "work-dir-2", "chats", `session-2026-12-05T19-45-${exported.id.slice(0, 8)}.jsonl`),
    "a folder of its own: the registry names work-dir for another project",
  );
  assertEquals(await Deno.readTextFile(join(tmp, "work-dir-2", ".project_root")), cwd);
  assertEquals(JSON.parse(await Deno.readTextFile(join(home, ".gemini", "projects.json"))), {
    projects: { "/elsewhere": "work-dir", [cwd]: "work-dir-2" },
  });
  const [meta] = await lines(exported.path);
  assertEquals(meta!.sessionId, exported.id);
  assertEquals(meta!.kind, "main");
  assertMatch(String(meta!.projectHash), /^[0-9a-f]{64}$/);
  const original = await readConversation(path);
  const back = await readConversation(exported.path);
  assertEquals(plain(back), plain(original));
  const again = await exportSession(path, {
    to: "gemini",
    env: env({ GEMINI_CLI_HOME: home }),
    cwd,
  });
  assert(again.path.startsWith(join(tmp, "work-dir-2", "chats")), "the registered folder is used");
});

Deno.test("exportSession() carries a compaction in each target's own form", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeCompaction());
  const original = await readConversation(path);
  assertEquals(plain(original)[0], ["summary", "Summary two: steps one to four are done."]);
  for (const to of ["codex", "claude", "turnlog"]) {
    const exported = await exportSession(path, {
      to,
      env: env({ HOME: at.dir }),
      root: join(at.dir, "sessions"),
      cwd: at.dir,
    });
    assertEquals(plain(await readConversation(exported.path)), plain(original), to);
  }
  const gemini = await exportSession(path, {
    to: "gemini",
    env: env({ HOME: at.dir }),
    cwd: at.dir,
  });
  const back = plain(await readConversation(gemini.path));
  assertEquals(back[0], ["user", "Summary two: steps one to four are done."]);
  assertEquals(gemini.degraded.find((d) => d.what === "compaction summaries")?.count, 1);
});

Deno.test("exportSession() from Gemini CLI to turnlog keeps every record", async () => {
  await using at = await place();
  const path = await source(
    at.dir,
    "session-2026-12-01T10-00-5a7e0c1d.jsonl",
    geminiToolSession().text(),
  );
  const exported = await exportSession(path, {
    to: "turnlog",
    root: join(at.dir, "sessions"),
    cwd: at.dir,
  });
  const original = await readConversation(path);
  const back = await readConversation(exported.path);
  assertEquals(back.items, original.items, "items and times");
  assertEquals(back.meta.importedFrom, {
    format: "gemini",
    path,
    sessionId: original.sessionId,
  });
  assertEquals(exported.degraded, [{
    what: "thoughts",
    how: "left out: Gemini keeps them for display only",
    count: 1,
  }]);
});

Deno.test("exportSession() never writes over a file, and a home it cannot write gets one error", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeBasic());
  const home = join(at.dir, "codex");
  const options = { to: "codex", env: env({ CODEX_HOME: home }), cwd: at.dir, now: NOW };
  const first = await exportSession(path, {
    ...options,
    id: "019af000-0000-7000-8000-000000000001",
  });
  const bytes = await Deno.readFile(first.path);
  const error = await assertRejects(
    () => exportSession(path, { ...options, id: "019af000-0000-7000-8000-000000000001" }),
    ExportWriteError,
  );
  assertEquals(error.message, `${first.path} exists already: an export never writes over a file`);
  assertEquals(await Deno.readFile(first.path), bytes);
  const dayFolder = join(home, "sessions", "2026", "12", "05");
  assertEquals([...Deno.readDirSync(dayFolder)].map((e) => e.name), [first.path.split("/").at(-1)]);
  await Deno.writeTextFile(join(at.dir, "a-file"), "");
  const blocked = await assertRejects(
    () => exportSession(path, { ...options, env: env({ CODEX_HOME: join(at.dir, "a-file") }) }),
    ExportWriteError,
  );
  assertEquals(errorKind(blocked), "store");
  assertMatch(blocked.message, /^Cannot write into .*a-file\/sessions\/2026\/12\/05: /);
});

async function run(args: string[], vars: Record<string, string>, cwd?: string) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=export", CLI, ...args],
    env: { NO_COLOR: "1", ...vars },
    stdin: "null",
    ...(cwd === undefined ? {} : { cwd }),
  }).output();
  return said(output);
}

Deno.test("export prints the new file, what was carried and not, and the command that resumes it", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeDamage());
  const home = join(at.dir, "codex");
  const ran = await run([path, "--to", "codex"], { CODEX_HOME: home }, at.dir);
  assertEquals(ran.code, 0, ran.stderr);
  const text = ran.stdout.split("\n");
  assertEquals(text[0], `Exported the Claude Code transcript ${path} (only read)`);
  assertEquals(
    text[2],
    `Project folder: ${at.dir} (the current folder: the source's recorded one is not here)`,
  );
  const id = /^New Codex CLI rollout (\S+)$/.exec(text[3]!)?.[1];
  assert(id !== undefined, ran.stdout);
  assert(text[4]!.startsWith(`  ${home}/sessions/`), text[4]);
  assert(text.some((line) => line.startsWith(`Skipped ${path}:2: `)), ran.stdout);
  assertEquals(text.at(-2), `Resume it: codex resume ${id}`);
  const json = await run([path, "--to", "claude", "--json", "--cwd", at.dir], {
    CLAUDE_CONFIG_DIR: join(at.dir, "claude"),
  });
  assertEquals(json.code, 0, json.stderr);
  const value = JSON.parse(json.stdout);
  assertEquals(Object.keys(value), [
    "target",
    "id",
    "path",
    "cwd",
    "resume",
    "carried",
    "degraded",
  ]);
  assertEquals(value.target, "claude");
  assertEquals(value.cwd, at.dir);
  assertEquals(value.resume, `cd ${at.dir} && claude --resume ${value.id}`);
  assertEquals(value.carried, { userMessages: 1, assistantMessages: 1, calls: 0, results: 0 });
  assert(
    value.degraded.some((d: { what: string }) =>
      d.what === "lines of the source that are not valid"
    ),
  );
});

Deno.test("export says what is wrong in one line, with the exit code of its kind", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeBasic());
  const empty = await source(at.dir, "00000000-0000-4000-8000-000000000000.jsonl", "");
  const vars = {
    CODEX_HOME: join(at.dir, "codex"),
    CLAUDE_CONFIG_DIR: join(at.dir, "claude"),
    GEMINI_CLI_HOME: at.dir,
  };
  const unknown = await run([path, "--to", "vim"], vars);
  assertEquals([unknown.code, unknown.stderr], [
    2,
    'turnlog export: Unknown target "vim": --to takes codex, claude, gemini, turnlog\n' +
    "Run ./denow task export --help for the options.\n",
  ]);
  const none = await run([empty, "--to", "codex"], vars);
  assertEquals(none.code, 2);
  assertEquals(
    none.stderr.split("\n")[0],
    `turnlog export: ${empty}: no conversation to export (empty file)`,
  );
  const notFound = await run(["01ab", "--to", "codex", "--claude"], vars);
  assertEquals(notFound.code, 2);
  assertMatch(notFound.stderr, /^turnlog export: .*01ab/);
  await Deno.writeTextFile(join(at.dir, "a-file"), "");
  const blocked = await run([path, "--to", "codex"], {
    ...vars,
    CODEX_HOME: join(at.dir, "a-file"),
  });
  assertEquals(blocked.code, 1);
  assertMatch(blocked.stderr, /^turnlog export: Cannot write into .*a-file\/sessions/);
  const folder = join(at.dir, "folder.jsonl");
  await Deno.mkdir(folder);
  const notAFile = await run([folder, "--to", "codex"], vars);
  assertEquals([notAFile.code, notAFile.stderr.split("\n")[0]], [
    2,
    `turnlog export: Not a session file: ${folder} is a directory or another special file`,
  ]);
  const missingTo = await run([path], vars);
  assertEquals(missingTo.code, 2);
  assertEquals(
    missingTo.stderr.split("\n")[0],
    "turnlog export: Name the tool it goes to: --to codex|claude|gemini|turnlog",
  );
});

Deno.test("missingInOrder() names what a request leaves out or puts out of order", () => {
  const truth = sentConversation({
    input: [
      { type: "message", role: "user", content: [{ type: "input_text", text: "run it" }] },
      { type: "function_call", name: "Bash", arguments: '{"command":"ls"}', call_id: "a" },
      { type: "function_call_output", call_id: "a", output: "a.txt" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Done." }] },
    ],
  });
  const sent = sentConversation({
    messages: [
      { role: "user", content: [{ type: "text", text: "<system-reminder>x</system-reminder>" }] },
      { role: "user", content: "run it" },
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "t", name: "Bash", input: { command: "ls" } }],
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "t", content: "a.txt" }] },
      { role: "assistant", content: [{ type: "text", text: "Done." }] },
    ],
  });
  assertEquals(missingInOrder(truth, sent), []);
  assertEquals(missingInOrder(truth, sent.filter((item) => item.kind !== "result")), [
    "result: a.txt",
  ]);
  assertEquals(missingInOrder(truth, [...sent].reverse()).length, 3, "out of order is missing");
  const patch = sentConversation({
    input: [{ type: "function_call", name: "apply_patch", arguments: "*** Begin Patch" }],
  });
  const wrapped = sentConversation({
    messages: [{
      role: "assistant",
      content: [{
        type: "tool_use",
        id: "t",
        name: "apply_patch",
        input: { input: "*** Begin Patch" },
      }],
    }],
  });
  assertEquals(missingInOrder(patch, wrapped), [], "arguments that are not an object, as {input}");
});

Deno.test("exportSession() writes where the session came from, and turnlog reads it back", async () => {
  await using at = await place();
  const path = await source(at.dir, "claude.jsonl", claudeBasic());
  const original = await readConversation(path);
  const from = { format: "claude-code", path, sessionId: original.sessionId };
  for (const to of ["codex", "claude", "gemini", "turnlog"]) {
    const exported = await exportSession(path, {
      to,
      env: env({ HOME: at.dir }),
      root: join(at.dir, "sessions"),
      cwd: at.dir,
    });
    assertEquals(exported.source, from, to);
    assertEquals((await readConversation(exported.path)).meta.importedFrom, from, to);
  }
});
