import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Catalog, CATALOG_VERSION } from "../src/catalog/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { adapterByFlag } from "../src/formats/mod.ts";
import { browsePage, FactsMemo } from "../src/server/mod.ts";
import { FileStore } from "../src/store/mod.ts";
import { compileQuery } from "../src/search/mod.ts";
import {
  appendLines,
  catalogAnswers,
  catalogHome,
  countParses,
  deleteFile,
  tearLine,
} from "./_catalog_home.ts";
import { CORPUS_MISSING, corpusSources } from "./_corpus.ts";
import { tempDir } from "./_helpers.ts";

Deno.test("Catalog.update() reads a new file whole, then costs a stat while it stays as it was", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  const bytes = home.files.reduce((sum, file) => sum + Deno.statSync(file.path).size, 0);
  assertEquals(await catalog.update(sources), {
    seen: 3,
    read: 3,
    grown: 0,
    fallbacks: 0,
    texted: 0,
    textLeft: 0,
    gone: 0,
    bytes,
    unread: [],
  });
  assertEquals(await catalog.update(sources), {
    seen: 3,
    read: 0,
    grown: 0,
    fallbacks: 0,
    texted: 0,
    textLeft: 0,
    gone: 0,
    bytes: 0,
    unread: [],
  });
});

Deno.test("Catalog.update() reads a grown file from its indexed offset; a torn last line waits", async () => {
  await using home = await catalogHome();
  const [file] = home.files;
  await appendLines(file!, 5);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  const before = Deno.statSync(file!.path).size;
  await tearLine(file!);
  const torn = await catalog.update(sources);
  assertEquals([torn.grown, torn.bytes], [1, Deno.statSync(file!.path).size - before]);
  const lines = () => catalogAnswers(catalog, sources).lines.map((row) => row.line);
  assertEquals(lines().includes(6), false);
  await appendLines(file!, 0);
  const done = await catalog.update(sources);
  assertEquals([done.grown, done.read], [1, 0]);
  assertEquals(lines().includes(6), true);
});

Deno.test("Catalog.update() without text keeps the facts alone; the first update with text indexes those files' text alone", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 5);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  const bytes = home.files.reduce((sum, file) => sum + Deno.statSync(file.path).size, 0);
  const facts = await catalog.update(sources, { text: false });
  assertEquals([facts.read, facts.texted, facts.bytes], [3, 0, bytes]);
  const rows = () => Number(catalog.db.prepare("SELECT count(*) AS n FROM lines").get()!.n);
  assertEquals(rows(), 0);
  // A search now scans every file: the catalog cannot answer for a file without its text.
  const index = await catalog.searchIndex();
  const lookup = index.lookup(compileQuery({ terms: ["files"] }));
  assertEquals(home.files.map((file) => lookup(file.path)), [undefined, undefined, undefined]);

  const text = await catalog.update(sources);
  assertEquals([text.read, text.grown, text.texted, text.bytes], [0, 0, 3, bytes]);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  assertEquals(catalog.sessions(sources), fresh.sessions(sources));
  assertEquals((await catalog.update(sources)).texted, 0);

  // Once indexed, a grown file's facts go on without its text: its rows stay, the file out of
  // the index until the next update with text puts in the rows of the lines appended alone.
  const [first] = home.files;
  const before = catalogAnswers(catalog, sources).lines;
  await appendLines(first!, 5);
  const grown = await catalog.update(sources, { text: false });
  assertEquals([grown.grown, grown.fallbacks, grown.texted], [1, 0, 0]);
  assertEquals(catalogAnswers(catalog, sources).lines, before);
  const after = (await catalog.searchIndex()).lookup(compileQuery({ terms: ["files"] }));
  assertEquals(after(first!.path), undefined);
  using factsAlone = Catalog.open({ path: join(home.dir, "facts.sqlite") });
  await factsAlone.update(sources, { text: false });
  assertEquals(catalog.sessions(sources), factsAlone.sessions(sources));
  const rowsBefore = rows();
  const caught = await catalog.update(sources);
  assertEquals([caught.read, caught.grown, caught.texted], [0, 0, 1]);
  using again = Catalog.open({ path: join(home.dir, "again.sqlite") });
  await again.update(sources);
  // The rows put in are those of the lines appended (past line 5) alone.
  const appended = catalogAnswers(again, sources).lines
    .filter((row) => row.path === first!.path && row.line > 5);
  assert(appended.length > 0);
  assertEquals(rows() - rowsBefore, appended.length);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(again, sources));
});

Deno.test("Catalog.update() with workers keeps the files rows a read in this thread keeps, byte for byte", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  // A file no reader can read: its worker's answer says so, as this thread would.
  const broken = join(
    home.dir,
    ".claude",
    "projects",
    "-work-p",
    "0b0b0b0b-0000-4000-8000-0000000000ff.jsonl",
  );
  await Deno.writeTextFile(broken, "\u0000\u0000 not a transcript\n");
  const sources = await home.sources();
  using alone = Catalog.open({ path: join(home.dir, "alone.sqlite") });
  const [read, parsedAlone] = await countParses(() =>
    alone.update(sources, { text: false, workers: 0 })
  );
  assertEquals(read.read, 4);
  const rows = (catalog: Catalog) => catalog.db.prepare("SELECT * FROM files ORDER BY path").all();
  // One worker beside this thread (two cores), and three.
  for (const workers of [1, 3]) {
    using pooled = Catalog.open({ path: join(home.dir, `pooled${workers}.sqlite`) });
    const [summary, parsed] = await countParses(() =>
      pooled.update(sources, { text: false, workers })
    );
    assertEquals(summary, read);
    // The worker read files of its own: this thread parsed fewer lines than alone.
    assert(parsed < parsedAlone, `${parsed} parsed here with ${workers}, ${parsedAlone} alone`);
    assertEquals(pooled.sessions(sources), alone.sessions(sources));
    assertEquals(rows(pooled), rows(alone));
    // The text asked for after them is the same too.
    await pooled.update(sources);
  }
  await alone.update(sources);
  using pooled = Catalog.open({ path: join(home.dir, "pooled1.sqlite") });
  assertEquals(catalogAnswers(pooled, sources), catalogAnswers(alone, sources));
});

Deno.test("Catalog.sessions() tells each session's turns, verdict, dates and tokens as inspect does", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  const sessions = catalog.sessions(sources);
  assertEquals(sessions.length, 3);
  for (const session of sessions) {
    const report = await inspectSession(session.path);
    assertEquals(
      [session.turns, session.healthy, session.firstAt, session.lastAt, session.tokens],
      [
        report.turns.length,
        report.healthy,
        report.session.created,
        report.session.updated,
        report.session.tokens,
      ],
    );
  }
});

Deno.test("Catalog.update() marks a deleted file gone: no session, no text", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  await deleteFile(home.files[0]!);
  assertEquals((await catalog.update(sources)).gone, 1);
  const answers = catalogAnswers(catalog, sources);
  assertEquals(answers.sessions.map((s) => s.path).includes(home.files[0]!.path), false);
  assertEquals(answers.found.hello, []);
});

Deno.test("Catalog.open() makes a catalog of another version again, saying so in one line", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "data", "catalog.sqlite");
  Catalog.open({ path }).close();
  assertEquals(Deno.statSync(path).mode! & 0o777, 0o600);
  assertEquals(Deno.statSync(join(dir, "data")).mode! & 0o777, 0o700);
  const db = new DatabaseSync(path);
  db.exec("PRAGMA user_version = 99");
  db.close();
  const said: string[] = [];
  Catalog.open({ path, onRebuilt: (line) => said.push(line) }).close();
  assertEquals(said, [
    `the catalog ${path} is of version 99, this turnlog's is ${CATALOG_VERSION}: made again`,
  ]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("Catalog.open() makes a damaged catalog again, saying so in one line", async () => {
  const dir = await Deno.makeTempDir();
  const path = join(dir, "catalog.sqlite");
  await Deno.writeTextFile(
    path,
    "not a database, a file of text long enough to be read ".repeat(100),
  );
  const said: string[] = [];
  using catalog = Catalog.open({ path, onRebuilt: (line) => said.push(line) });
  assertEquals(said.length, 1);
  assertEquals(said[0]!.startsWith(`the catalog ${path} is damaged (`), true);
  assertEquals(catalog.sessions([{ format: "codex", root: dir }]), []);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("browsePage() with the catalog shows every session's turns and health on first view, ordered by their own dates across pages", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  // Files written in the reverse order of their sessions' dates: file times would mislead.
  const touched = [...home.files].reverse();
  touched.forEach((file, i) => Deno.utimeSync(file.path, 1_900_000_000 + i, 1_900_000_000 + i));
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const store = new FileStore(join(home.dir, "sessions"));
  const homes = (await home.sources()).map((source) => ({
    adapter: adapterByFlag(source.format === "codex" ? "codex" : "claude")!,
    root: source.root,
  }));
  const rows = [];
  let cursor: string | undefined;
  do {
    const page = await browsePage({
      store,
      homes,
      facts: new FactsMemo(),
      pageSize: 2,
      cursor,
      catalog,
    });
    rows.push(...page.sessions);
    cursor = page.next === null
      ? undefined
      : decodeURIComponent(page.next.slice("/?after=".length));
  } while (cursor !== undefined);
  const reports = await Promise.all(rows.map((row) => inspectSession(row.path!)));
  assertEquals(
    rows.map((row) => [row.path, row.turns, row.healthy]),
    reports.map((report) => [report.session.path, report.turns.length, report.healthy]),
  );
  const dates = reports.map((report) => report.session.updated ?? report.session.created);
  assertEquals(dates, [...dates].sort().reverse());
  assertEquals(rows.length, 3);
});

Deno.test({
  name:
    "Catalog.listing() gives each session's fields as Catalog.sessions() does, the first model alone, over the corpus's homes",
  ignore: CORPUS_MISSING !== undefined,
  async fn() {
    await using dir = await tempDir();
    const sources = await corpusSources(dir.path);
    using catalog = Catalog.open({ path: join(dir.path, "c.sqlite") });
    await catalog.update(sources, { text: false });
    let models = 0;
    for (const source of sources) {
      const sessions = catalog.sessions([source]);
      assert(sessions.length > 3, source.root);
      const listing = catalog.listing(source);
      const byPath = new Map(sessions.map((session) => [session.path, session]));
      assertEquals(listing.map((session) => session.path).sort(), [...byPath.keys()].sort());
      for (const listed of listing) {
        const session = byPath.get(listed.path)!;
        const { models: first, ...rest } = listed;
        assertEquals(first, session.models.slice(0, 1), listed.path);
        models += first.length;
        for (const [key, value] of Object.entries(rest)) {
          assertEquals(value, session[key as keyof typeof session], `${listed.path}: ${key}`);
        }
      }
    }
    assert(models > 0, "sessions with models");
  },
});

Deno.test("Catalog.update() tells onRead what the reader of each file read whole found, the same from a worker as from this thread", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  const sources = await home.sources();
  const reads = async (workers: number) => {
    using catalog = Catalog.open({ path: join(home.dir, `read-${workers}.sqlite`) });
    const told: [string, unknown][] = [];
    await catalog.update(sources, {
      text: false,
      workers,
      onRead: ({ path, found }) => told.push([path, found]),
    });
    return told.sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
  };
  const here = await reads(0);
  assertEquals(here.map(([path]) => path), home.files.map((file) => file.path).sort());
  assert(here.every(([, found]) => typeof (found as { version: unknown }).version === "string"));
  assertEquals(await reads(2), here);
});
