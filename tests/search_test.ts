/**
 * searchSessions() against an independent reading of the raw files: on homes the project's
 * fixtures write (always), and on the shared corpus laid out as a Claude Code home and a
 * Codex home in a temp folder (when the corpus is there). The lines found are exactly the
 * lines whose conversation holds the words, and every hit's turn is the inspector's; and every
 * format of the registry on the adapter contract's fixture, against the fixture's oracle.
 */
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { CORPUS, corpusMissing } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import {
  conversationWords,
  homeFiles,
  matchingLines,
  threadMatchingLines,
} from "./_search_oracle.ts";
import { forkHome } from "./_codex_fork_home.ts";
import { writeClaudeHome, writeCodexHome } from "../testing/formats/homes.ts";
import { ADAPTERS, collectSession, type SessionFormat } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { Rng } from "../testing/generate/mod.ts";
import { candidateLines } from "../src/search/_scan.ts";
import {
  compileQuery,
  homeSourceAt,
  newestSessionFirst,
  type SearchEvent,
  type SearchHit,
  searchSessions,
  type SearchSource,
} from "../src/search/mod.ts";

const REPO_SESSIONS = fileURLToPath(new URL("../sessions/", import.meta.url));
/** The corpus: `TURNLOG_CORPUS`, else the shared folder beside the repository. */
const CORPUS_DIR = Deno.env.get("TURNLOG_CORPUS") ?? CORPUS;

interface Home {
  sources: SearchSource[];
  files: { path: string; format: SessionFormat }[];
}

async function homeOf(sources: SearchSource[]): Promise<Home> {
  const files = [];
  for (const source of sources) {
    for (const path of await homeFiles(source.root)) files.push({ path, format: source.format });
  }
  return { sources, files };
}

/** The fixtures' homes and the example sessions, in `dir`. */
async function generatedHome(dir: string): Promise<Home> {
  await writeCodexHome(join(dir, "codex"));
  await writeClaudeHome(join(dir, "claude"));
  const store = join(dir, "store");
  await Deno.mkdir(join(store, "2026", "01"), { recursive: true });
  for await (const day of Deno.readDir(join(REPO_SESSIONS, "2026", "01"))) {
    const from = join(REPO_SESSIONS, "2026", "01", day.name);
    await Deno.mkdir(join(store, "2026", "01", day.name), { recursive: true });
    for await (const file of Deno.readDir(from)) {
      await Deno.copyFile(join(from, file.name), join(store, "2026", "01", day.name, file.name));
    }
  }
  return await homeOf([
    { format: "codex", root: join(dir, "codex", "sessions"), flags: [] },
    { format: "claude-code", root: join(dir, "claude", "projects"), flags: [] },
    { format: "turnlog", root: store, flags: [] },
  ]);
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    if (entry.isDirectory) await copyTree(join(from, entry.name), join(to, entry.name));
    else await Deno.copyFile(join(from, entry.name), join(to, entry.name));
  }
}

/** The corpus laid out as homes in `dir`: its rollouts in day folders, its transcripts in projects. */
async function corpusHome(dir: string): Promise<Home> {
  const projects = join(dir, "claude", "projects");
  await copyTree(join(CORPUS_DIR, "claude", "projects"), projects);
  await copyTree(join(CORPUS_DIR, "claude", "synthetic"), join(projects, "-synthetic"));
  const sessions = join(dir, "codex", "sessions");
  for await (const entry of Deno.readDir(join(CORPUS_DIR, "codex"))) {
    const from = join(CORPUS_DIR, "codex", entry.name);
    const head = (await Deno.readTextFile(from)).split("\n", 1)[0]!;
    const meta = JSON.parse(head).payload as { id: string; timestamp: string };
    const [date, time] = meta.timestamp.slice(0, 19).split("T") as [string, string];
    const day = join(sessions, ...date.split("-"));
    await Deno.mkdir(day, { recursive: true });
    const name = `rollout-${date}T${time.replaceAll(":", "-")}-${meta.id}.jsonl`;
    await Deno.copyFile(from, join(day, name));
  }
  return await homeOf([
    { format: "codex", root: sessions, flags: [] },
    { format: "claude-code", root: projects, flags: [] },
  ]);
}

async function search(home: Home, terms: string[]): Promise<SearchEvent[]> {
  const events: SearchEvent[] = [];
  for await (const event of searchSessions({ terms }, { sources: home.sources })) {
    events.push(event);
  }
  return events;
}

const hitsOf = (events: SearchEvent[]): SearchHit[] =>
  events.flatMap((event) => (event.kind === "session" ? event.hits : []));

/** The found lines are exactly the oracle's, as `path:line`. */
async function checkTerms(home: Home, terms: string[]): Promise<number> {
  const expected: string[] = [];
  for (const { path, format } of home.files) {
    for (const line of await matchingLines(path, format, terms)) expected.push(`${path}:${line}`);
  }
  const hits = hitsOf(await search(home, terms));
  const found = hits.map((hit) => `${hit.path}:${hit.line}`);
  assertEquals(found.toSorted(), expected.toSorted(), `terms ${JSON.stringify(terms)}`);
  return found.length;
}

/** The turn of every hit is the inspector's: the turns its reader opened before the line. */
async function checkTurns(hits: SearchHit[], skip: (path: string) => boolean): Promise<number> {
  let checked = 0;
  for (const path of new Set(hits.map((hit) => hit.path))) {
    if (skip(path)) continue;
    const { entries } = await collectSession(path, undefined, { subagents: false });
    const turnAt = new Map<number, number>();
    let turn = 0;
    for (const entry of entries) {
      if (entry.record?.type === "turn_context") turn++;
      else if (entry.record?.type === "response_item" && !turnAt.has(entry.line)) {
        turnAt.set(entry.line, turn);
      }
    }
    for (const hit of hits.filter((h) => h.path === path)) {
      const expected = turnAt.get(hit.line);
      if (expected === undefined) continue;
      assertEquals(hit.turn, expected, `${hit.path}:${hit.line}`);
      checked++;
    }
  }
  return checked;
}

Deno.test("searchSessions() finds exactly the lines whose conversation holds the words (generated homes)", async () => {
  await using dir = await tempDir();
  const home = await generatedHome(dir.path);
  const words = await conversationWords(home.files);
  assert(words.length > 30, `only ${words.length} words`);
  let found = 0;
  for (const word of words) found += await checkTerms(home, [word]);
  for (const word of words.slice(0, 10)) await checkTerms(home, [word.toUpperCase()]);
  // Words that stand only in metadata or in thinking find nothing there.
  for (const word of ["gitBranch", "sessionId", "cwd", "response_item"]) {
    await checkTerms(home, [word]);
  }
  await checkTerms(home, [words[3]!, words[40]!]);
  assert(found > 50, `${found} hits`);
  const hits = hitsOf(await search(home, ["the"]));
  assert(await checkTurns(hits, () => false) > 20);
});

Deno.test({
  ...needing(
    "searchSessions() finds exactly the lines whose conversation holds the words (corpus)",
    corpusMissing(CORPUS_DIR),
  ),
  async fn() {
    await using dir = await tempDir();
    const home = await corpusHome(dir.path);
    const words = await conversationWords(home.files);
    let found = 0;
    // Every 40th word, and the cases that test the prefilter: capitals, a phrase, words
    // that stand in metadata too, a quote, a backslash and non-ASCII text.
    for (const word of words.filter((_, i) => i % 40 === 0)) {
      found += await checkTerms(home, [word]);
    }
    for (
      const terms of [
        ["CROSS-PLATFORM"],
        ["cross-platform solution"],
        ["gh-pages"],
        ["external"],
        ["claude-code-log"],
        ['"path"'],
        ["\\n"],
        ["é"],
        ["→"],
        ["—"],
        ["[REDACTED_TEXT"],
        ["README", "index.html"],
      ]
    ) {
      found += await checkTerms(home, terms);
    }
    assert(found > 100, `${found} hits`);
    // The inspector numbers turns on the active branch; hand-made forks and rewinds differ.
    const hits = hitsOf(await search(home, ["the"]));
    const checked = await checkTurns(hits, (path) => path.includes("-synthetic"));
    assert(checked > 100, `${checked} turns checked`);
  },
});

Deno.test("searchSessions() gives a subagent's lines to its session, newest first", async () => {
  await using dir = await tempDir();
  const home = await generatedHome(dir.path);
  const events = await search(home, ["the"]);
  const sessions = events.flatMap((e) => (e.kind === "session" ? [e] : []));
  const withAgent = sessions.find((e) => e.hits.some((hit) => hit.subagent !== null));
  assert(withAgent, "no hit in a subagent's file");
  assert(withAgent.hits.some((hit) => hit.subagent === null), "the session's own hits too");
  for (const hit of withAgent.hits) assertEquals(hit.sessionId, withAgent.session.id);
  assert(!sessions.some((e) => basename(e.session.path).startsWith("agent-")));
  // By their own start, newest first (tests/search_order_test.ts: not by file time).
  const order = sessions.map((e) => e.session);
  assertEquals(order, order.toSorted(newestSessionFirst));
  const ids = new Set(sessions.map((e) => e.session.shortId));
  assertEquals(ids.size, sessions.length);
});

Deno.test("candidateLines() yields exactly the lines holding every fragment, in any case", async () => {
  await using dir = await tempDir();
  // A small alphabet makes near misses everywhere; one line is longer than a read.
  const rng = new Rng(7);
  const alphabet = "abAB k-.\u00e9";
  const line = (n: number) =>
    Array.from({ length: n }, () => alphabet[Math.floor(rng.next() * alphabet.length)]).join("");
  const lines = Array.from({ length: 3000 }, () => line(1 + Math.floor(rng.next() * 120)));
  lines.push("x".repeat(5 << 20) + "BaK-a");
  const path = join(dir.path, "lines.jsonl");
  await Deno.writeTextFile(path, lines.join("\n"));
  const offsets: number[] = [];
  lines.reduce((at, text) => (offsets.push(at), at + new TextEncoder().encode(text).length + 1), 0);
  for (const terms of [["bak"], ["a"], ["ab", "k-"], ["BA.K"], ["aé"], ["kab", "b k"]]) {
    const query = compileQuery({ terms });
    const found: { text: string; offset: number }[] = [];
    for await (const candidate of candidateLines(path, query)) found.push(candidate);
    const expected = lines.flatMap((text, index) =>
      query.fragments.every((f) => text.toLowerCase().includes(f))
        ? [{ text, offset: offsets[index]! }]
        : []
    );
    assertEquals(found, expected, terms.join(" "));
    assert(found.length > 0, terms.join(" "));
  }
});

for (const adapter of ADAPTERS) {
  Deno.test(`searchSessions() finds exactly the oracle's lines for every word of ${adapter.tool}'s first prompt`, async () => {
    await using dir = await tempDir();
    const fixture = FIXTURES[adapter.name]!;
    const session = await fixture.write(dir.path);
    const { firstPrompt } = (await inspectSession(session.path)).session;
    const words = firstPrompt!.split(/\W+/).filter((word) => word.length > 0);
    assert(words.length > 1, firstPrompt!);
    const sources = [homeSourceAt(adapter, session.root)];
    for (const terms of [...words.map((word) => [word]), words]) {
      const found: number[] = [];
      for await (const event of searchSessions({ terms }, { sources })) {
        if (event.kind === "session") found.push(...event.hits.map((hit) => hit.line));
      }
      assertEquals(found.toSorted((a, b) => a - b), await fixture.oracle(session.path, terms));
    }
  });
}

Deno.test("searchSessions() finds a word of a Codex fork's inherited history in the fork, on the parent's line", async () => {
  await using dir = await tempDir();
  const { ids, paths } = await forkHome(dir.path);
  const sources = [homeSourceAt(ADAPTERS.find((a) => a.name === "codex")!, dir.path)];
  for (const terms of [["zebrafish"], ["narwhal"], ["twelve"], ["grandchild"], ["count", "12"]]) {
    const events: SearchEvent[] = [];
    for await (const event of searchSessions({ terms }, { sources })) events.push(event);
    const bySession = new Map<string, { path: string; line: number }[]>();
    for (const event of events) {
      if (event.kind !== "session") continue;
      bySession.set(
        event.session.id,
        event.hits.map((hit) => ({ path: hit.path, line: hit.line })),
      );
      for (const hit of event.hits) assertEquals(hit.sessionId, event.session.id);
    }
    for (const [name, id] of Object.entries(ids)) {
      const expected = await threadMatchingLines(paths[name as keyof typeof ids], dir.path, terms);
      assertEquals(bySession.get(id) ?? [], expected, `${terms.join(" ")} in ${name}`);
    }
    const orphanSkip = events.filter((e) => e.kind === "skipped" && e.path === paths.orphan);
    assertEquals(orphanSkip.length, 1, terms.join(" "));
  }
  // The oracle's answer written out for one word: the parent's first turn (lines 8 to 15) and
  // the fork's own prompt are the grandchild's history; the parent's second turn (line 22,
  // after the fork point) is not.
  assertEquals(await matchingLines(paths.parent, "codex", ["zebrafish"]), [8, 10, 13, 15, 22]);
  assertEquals(await threadMatchingLines(paths.fork2, dir.path, ["zebrafish"]), [
    ...[8, 10, 13, 15].map((line) => ({ path: paths.parent, line })),
    { path: paths.fork, line: 5 },
  ]);
});
