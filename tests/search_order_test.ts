/**
 * Issue 40, item 3: search results come by the sessions' own dates (their start, from their
 * records), newest first, a session whose records name no time last; not by their files' time,
 * which a copied or restored home sets to the minute of the copy.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { said, tempDir } from "./_helpers.ts";
import { newestSessionFirst, searchSessions, sessionTime } from "../src/search/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

const SEARCH = fileURLToPath(new URL("../cli/search.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

/** A Claude Code session started at `start` (null: its lines name no time), written at `mtime`. */
async function session(
  projects: string,
  name: string,
  start: string | null,
  mtime: string,
): Promise<string> {
  const id = `${name.padEnd(8, "0")}-0000-4000-8000-000000000001`;
  const b = new ClaudeTranscriptBuilder(
    { sessionId: id, cwd: `/work/${name}` },
    Date.parse(start ?? "2026-01-01T00:00:00Z"),
  );
  b.user(`find the tokenizer of ${name}`);
  b.assistant([{ text: `The tokenizer of ${name} is in src/.` }], { stop: "end_turn" });
  const lines = start === null
    ? b.lines.map((line) => {
      const { timestamp: _, ...rest } = JSON.parse(line);
      return JSON.stringify(rest);
    })
    : b.lines;
  const folder = join(projects, `-work-${name}`);
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, `${id}.jsonl`);
  await Deno.writeTextFile(path, lines.map((line) => `${line}\n`).join(""));
  await Deno.utime(path, new Date(mtime), new Date(mtime));
  return path;
}

/** Four sessions whose files' times run the other way from their starts. */
async function home(dir: string): Promise<string> {
  const projects = join(dir, "claude", "projects");
  // Written (file time) newest first: dateless, january, february, march.
  await session(projects, "dateless", null, "2026-06-04T00:00:00Z");
  await session(projects, "january", "2026-01-10T09:00:00Z", "2026-06-03T00:00:00Z");
  await session(projects, "february", "2026-02-10T09:00:00Z", "2026-06-02T00:00:00Z");
  await session(projects, "march", "2026-03-10T09:00:00Z", "2026-06-01T00:00:00Z");
  return join(dir, "claude");
}

Deno.test("newestSessionFirst() orders by start, newest first, the dateless last, ties by path", () => {
  const order = [
    { started: "not a time", path: "/b" },
    { started: "2026-01-10T09:00:00Z", path: "/z" },
    { started: null, path: "/a" },
    { started: "2026-03-10T09:00:00.000Z", path: "/y" },
    { started: "2026-01-10T09:00:00.000Z", path: "/x" },
  ].sort(newestSessionFirst).map((session) => session.path);
  assertEquals(order, ["/y", "/x", "/z", "/a", "/b"]);
  assertEquals(sessionTime({ started: "2026-01-10T09:00:00Z" }), Date.UTC(2026, 0, 10, 9));
  assertEquals(sessionTime({ started: null }), null);
});

Deno.test("searchSessions() gives sessions by their own start, newest first, the dateless last, not by file time", async () => {
  await using dir = await tempDir();
  const root = await home(dir.path);
  const sources = [{ format: "claude-code", root: join(root, "projects"), flags: ["--claude"] }];
  const names = async (limit?: number) => {
    const found: string[] = [];
    const options = { sources, ...(limit === undefined ? {} : { limit }) };
    for await (const event of searchSessions({ terms: ["tokenizer"] }, options)) {
      if (event.kind === "session") found.push(event.session.cwd ?? "?");
      if (event.kind === "limit") found.push(`limit ${event.limit}`);
    }
    return found;
  };
  assertEquals(await names(), [
    "/work/march",
    "/work/february",
    "/work/january",
    "/work/dateless",
  ]);
  assertEquals(await names(2), ["/work/march", "/work/february", "limit 2"]);
});

Deno.test("turnlog search prints sessions by their own start, the dateless last", async () => {
  await using dir = await tempDir();
  const root = await home(dir.path);
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=search", SEARCH, "--json", "tokenizer"].concat(
      ["--sessions-dir", root],
    ),
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output().then(said);
  assertEquals(output.code, 0, output.stderr);
  const sessions = output.stdout.trim().split("\n").map((line) => JSON.parse(line).session);
  assertEquals(
    [...new Set(sessions.map((session) => `${session.cwd} ${session.started}`))],
    [
      "/work/march 2026-03-10T09:00:00.000Z",
      "/work/february 2026-02-10T09:00:00.000Z",
      "/work/january 2026-01-10T09:00:00.000Z",
      "/work/dateless null",
    ],
  );
});
