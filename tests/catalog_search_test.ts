import { join } from "node:path";
import { Catalog } from "../src/catalog/mod.ts";
import {
  compileQuery,
  type SearchEvent,
  searchSessions,
  type SearchSource,
  sessionsOf,
} from "../src/search/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { conversationWords, homeFiles, matchingLines } from "./_search_oracle.ts";
import { appendLines, type CatalogHome, catalogHome } from "./_catalog_home.ts";

/** What a search found: each session's hits as `path:line turn role`, and its skipped lines. */
async function found(
  terms: string[],
  sources: SearchSource[],
  catalog?: Catalog,
): Promise<{ hits: string[]; skipped: string[] }> {
  const hits: string[] = [];
  const skipped: string[] = [];
  const index = await catalog?.searchIndex();
  // As the command searches: the index, and the sessions the catalog's update walked.
  const given = catalog ? { index, walked: catalog.walked.bind(catalog) } : {};
  for await (const event of searchSessions({ terms }, { sources, ...given })) {
    if (event.kind === "session") {
      for (const hit of event.hits) hits.push(`${hit.path}:${hit.line} ${hit.turn} ${hit.role}`);
    }
    if (event.kind === "skipped") skipped.push(`${event.path}:${event.line}`);
  }
  return { hits: hits.sort(), skipped: skipped.sort() };
}

/** The oracle's lines of `files` for the terms, as `path:line`. */
async function oracleLines(
  terms: string[],
  files: { path: string; format: string }[],
): Promise<string[]> {
  const lines: string[] = [];
  for (const { path, format } of files) {
    for (const line of await matchingLines(path, format, terms)) lines.push(`${path}:${line}`);
  }
  return lines.sort();
}

/** The home's places as a search's sources. */
async function searchSourcesOf(home: CatalogHome): Promise<SearchSource[]> {
  return (await home.sources()).map((source) => ({
    format: source.format,
    root: source.root,
    flags: [],
    ...(source.archived ? { archived: true } : {}),
  }));
}

/**
 * The home with 100 lines appended to each file, and a catalog of its facts alone (no text
 * indexed yet); disposed: both gone.
 */
async function factsCatalog() {
  const home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  const sources = await searchSourcesOf(home);
  const catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  await catalog.update(sources, { text: false });
  return {
    home,
    sources,
    catalog,
    async [Symbol.asyncDispose]() {
      catalog.close();
      await home[Symbol.asyncDispose]();
    },
  };
}

const withoutPlace = (hits: string[]) => [...new Set(hits.map((hit) => hit.split(" ")[0]!))];

Deno.test({
  name:
    "searchSessions() with the catalog's index finds the same sessions and lines as the scan and the oracle, for every word of the real files",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir();
    // The rollouts laid out as a Codex home (a temporary copy, read where the tests run).
    const day = join(dir, "codex", "2026", "02", "23");
    await Deno.mkdir(day, { recursive: true });
    for (const path of await homeFiles(join(CORPUS, "codex"))) {
      const name = path.slice(path.lastIndexOf("/") + 1);
      if (name.startsWith("rollout-")) await Deno.copyFile(path, join(day, name));
    }
    const sources: SearchSource[] = [
      { format: "claude-code", root: join(CORPUS, "claude", "projects"), flags: ["--claude"] },
      { format: "codex", root: join(dir, "codex"), flags: ["--codex"] },
    ];
    using catalog = Catalog.open({ path: join(dir, "catalog.sqlite") });
    await catalog.update(sources);
    // The sessions the update walked are the search's own walk: the same files, the same
    // subagents in the same order, the same last writes.
    const walked = await sessionsOf(sources, catalog.walked.bind(catalog));
    assert(walked.some((session) => session.subagents.length > 0), "a session with subagents");
    assertEquals(walked, await sessionsOf(sources));
    assertEquals(sources.map((source) => catalog.walked(source)?.length), [
      walked.filter((session) => session.source === sources[0]).length,
      walked.filter((session) => session.source === sources[1]).length,
    ]);
    const files = catalog.db.prepare("SELECT path, format FROM files ORDER BY path").all() as {
      path: string;
      format: string;
    }[];
    assert(files.length > 10, `${files.length} files`);
    const words = await conversationWords(files);
    assert(words.length > 100, `${words.length} words`);
    // Every 30th word, two words at once, and a word no line holds.
    const queries = [
      ...words.filter((_, i) => i % 30 === 0).map((word) => [word]),
      [words[3]!, words[40]!],
      ["nowhere-in-these-files"],
    ];
    for (const terms of queries) {
      const indexed = await found(terms, sources, catalog);
      const scanned = await found(terms, sources);
      assertEquals(indexed, scanned, terms.join(" "));
      assertEquals(withoutPlace(indexed.hits), await oracleLines(terms, files), terms.join(" "));
    }
    await Deno.remove(dir, { recursive: true });
  },
});

Deno.test("searchSessions() with the catalog's index scans a file that grew since the update, and a word shorter than 3 characters", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 4);
  const sources = await searchSourcesOf(home);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  await catalog.update(sources);
  for (const file of home.files) await appendLines(file, 100);
  for (const terms of [["files"], ["ls"], ["tests", "pass"]]) {
    assertEquals(
      await found(terms, sources, catalog),
      await found(terms, sources),
      terms.join(" "),
    );
  }
});

Deno.test("searchSessions() with the catalog's index reads only the lines the index names", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  const sources = await searchSourcesOf(home);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  await catalog.update(sources);
  const events: SearchEvent[] = [];
  const index = await catalog.searchIndex();
  const lookup = index.lookup;
  let asked = 0;
  let given = 0;
  const counting = {
    lookup: (query: Parameters<typeof lookup>[0]) => {
      const of = lookup(query);
      return (path: string) => {
        asked++;
        const lines = of(path);
        if (lines !== undefined) given += lines.length;
        return lines;
      };
    },
  };
  for await (const event of searchSessions({ terms: ["hello"] }, { sources, index: counting })) {
    events.push(event);
  }
  assertEquals(asked, 3);
  assertEquals(given, 2);
  assertEquals(events.filter((event) => event.kind === "session").length, 1);
});

Deno.test("searchSessions() with the catalog's index judges a line holding a word's trigrams apart: not a hit", async () => {
  const dir = await Deno.makeTempDir();
  const project = join(dir, "projects", "-work-p");
  await Deno.mkdir(project, { recursive: true });
  const prompt = (n: number, content: string) =>
    JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: "user",
      message: { role: "user", content },
      uuid: `00000000-0000-4000-9000-00000000000${n}`,
      timestamp: `2026-02-23T12:00:0${n}.000Z`,
      sessionId: "11111111-1111-4111-8111-111111111111",
    });
  const path = join(project, "11111111-1111-4111-8111-111111111111.jsonl");
  // "tokoken" holds tok, oke and ken, every trigram of "token", but not the word.
  await Deno.writeTextFile(path, `${prompt(1, "a tokoken here")}\n${prompt(2, "the Token")}\n`);
  const sources: SearchSource[] = [{
    format: "claude-code",
    root: join(dir, "projects"),
    flags: [],
  }];
  using catalog = Catalog.open({ path: join(dir, "c.sqlite") });
  await catalog.update(sources);
  const lines = (await catalog.searchIndex()).lookup({
    terms: ["token"],
    tests: [],
    fragments: [],
  })(path);
  assertEquals(lines?.map((line) => line.line), [1, 2]);
  const indexed = await found(["token"], sources, catalog);
  assertEquals(indexed, await found(["token"], sources));
  assertEquals(indexed.hits, [`${path}:2 1 user`]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Catalog.update() with textBytes indexes the text of files already read a file at a time; a search scans the rest, its answers the scan's at every step", async () => {
  await using opened = await factsCatalog();
  const { home, sources, catalog } = opened;
  const texted = () =>
    (catalog.db.prepare("SELECT path FROM files WHERE texted = 1 ORDER BY path").all() as {
      path: string;
    }[]).map((row) => row.path);
  const steps: number[] = [];
  for (let update = 0; update < home.files.length; update++) {
    // One byte: the first file not indexed yet, and no other.
    const summary = await catalog.update(sources, { text: true, textBytes: 1 });
    steps.push(summary.texted);
    assertEquals(texted().length, update + 1);
    for (const terms of [["files"], ["tests", "pass"], ["hello"]]) {
      assertEquals(await found(terms, sources, catalog), await found(terms, sources), terms[0]);
    }
  }
  assertEquals(steps, [1, 1, 1]);
  assertEquals(texted(), home.files.map((file) => file.path).sort());
  // Whole now: nothing is left to index.
  assertEquals((await catalog.update(sources, { text: true, textBytes: 1 })).texted, 0);
});

Deno.test("the catalog's index judges a file by the rows its lines came with: an update during the search does not make it lose the file's hits", async () => {
  await using opened = await factsCatalog();
  const { home, sources, catalog } = opened;
  const lines = (await catalog.searchIndex()).lookup(compileQuery({ terms: ["files"] }));
  // While the search reads, another update (serve's build of the index) puts the text in.
  await catalog.update(sources, { text: true });
  // Not in the index when the search asked: the search reads it whole, as it did then.
  for (const file of home.files) assertEquals(lines(file.path), undefined, file.path);
  // A search that asks now has the index's lines.
  const now = (await catalog.searchIndex()).lookup(compileQuery({ terms: ["files"] }));
  assert(home.files.some((file) => (now(file.path)?.length ?? 0) > 0));
});

Deno.test("Catalog.update() with text finds a file rewritten at the same size and time by its lines: it is read again whole by the next update, so a build a step at a time ends with every file indexed", async () => {
  await using opened = await factsCatalog();
  const { home, sources, catalog } = opened;
  // Two lines made one in place (a newline made a space), its time put back: its `stat` is the
  // row's, its lines are not.
  const [file] = home.files;
  const before = await Deno.stat(file!.path);
  const bytes = await Deno.readFile(file!.path);
  const at = bytes.indexOf(0x0a);
  {
    using opened = await Deno.open(file!.path, { write: true });
    await opened.seek(at, Deno.SeekMode.Start);
    await opened.write(new Uint8Array([0x20]));
  }
  await Deno.utime(file!.path, before.atime!, before.mtime!);
  const lines = (await Deno.readTextFile(file!.path)).split("\n").length - 1;
  const steps: { texted: number; textLeft: number; read: number }[] = [];
  for (let step = 0; step < 6; step++) {
    const { texted, textLeft, read } = await catalog.update(sources, {
      text: true,
      textBytes: 1,
    });
    steps.push({ texted, textLeft, read });
    if (textLeft === 0) break;
  }
  const row = catalog.db.prepare("SELECT texted, lines, racy FROM files WHERE path = ?")
    .get(file!.path) as { texted: number; lines: number; racy: number };
  assertEquals({ ...row }, { texted: 1, lines, racy: 0 });
  assertEquals(steps.at(-1)!.textLeft, 0);
  // The rewritten file's step put nothing in; the next read it whole, its text with it.
  assert(steps.some((step) => step.texted === 0 && step.textLeft > 0), JSON.stringify(steps));
  assert(steps.some((step) => step.read === 1), JSON.stringify(steps));
  assertEquals(
    await found(["files"], sources, catalog),
    await found(["files"], sources),
  );
});
