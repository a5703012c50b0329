import { join } from "node:path";
import { Catalog, type CatalogSource } from "../src/catalog/mod.ts";
import { searchSessions, type SearchSource } from "../src/search/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { appendLines, catalogAnswers, catalogHome, goOn, repeatLine } from "./_catalog_home.ts";
import { fatTime, msTime, ownTimesOnly, rewriteUnseen, statOf, wholeSecondNow } from "./_racy.ts";

/** The first prompt of the home's first transcript, and a word of the same length for it. */
const PROMPT = "List and read the files";
const REWRITTEN = "List and read the fixes";

/**
 * Rewrites a file in place (the same inode: truncated and written, as Gemini CLI writes its
 * session), one text for another of its length, and gives it `mtime`.
 */
async function rewriteInPlace(path: string, mtime: Date): Promise<void> {
  const text = await Deno.readTextFile(path);
  assert(text.includes(PROMPT));
  await Deno.writeTextFile(path, text.replace(PROMPT, REWRITTEN));
  await Deno.utime(path, mtime, mtime);
}

/** The search's sessions and lines for `terms`, the catalog's index asked as the command asks it. */
async function searched(terms: string[], sources: SearchSource[], catalog: Catalog) {
  const index = await catalog.searchIndex();
  const found: string[] = [];
  for await (const event of searchSessions({ terms }, { sources, index })) {
    if (event.kind === "session") {
      for (const hit of event.hits) found.push(`${hit.path}:${hit.line}`);
    }
  }
  return found;
}

/** The home's sources as a search takes them. */
const searchSources = (sources: readonly CatalogSource[]): SearchSource[] =>
  sources.map((source) => ({
    format: source.format,
    root: source.root,
    flags: [],
    ...(source.archived ? { archived: true } : {}),
  }));

Deno.test("Catalog.update() reads again a file it read in the tick of its last write on a file system of seconds, rewritten since in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  const path = home.files[0]!.path;
  const second = await fatTime(path);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  assertEquals((await catalog.update(sources)).read, 3);
  await rewriteUnseen(path, PROMPT, REWRITTEN, second);
  // The search asked before the next update scans that file: the index cannot vouch for it.
  const words = searchSources(sources);
  assertEquals((await searched(["fixes"], words, catalog)).length, 1);
  const again = await catalog.update(sources);
  assertEquals([again.read, again.grown], [1, 0]);
  const session = catalog.sessions(sources).find((found) => found.path === path);
  assertEquals(session?.firstPrompt, REWRITTEN);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  assertEquals(await searched(["fixes"], words, catalog), await searched(["fixes"], words, fresh));
});

Deno.test("Catalog.update() of a file it kept with a time of ms takes a whole second after it as one write in 1,000, not a file system of seconds: the update after reads nothing", async () => {
  // The file's own times alone: not what its device showed.
  using _own = ownTimesOnly();
  await using home = await catalogHome();
  // Every file of ms, as its file system keeps them: one on a whole second would stay unsure.
  for (const file of home.files) {
    await appendLines(file, 100);
    await msTime(file.path);
  }
  const path = home.files[0]!.path;
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  assertEquals((await catalog.update(sources)).read, 3);
  await rewriteInPlace(path, await wholeSecondNow(path));
  assertEquals((await catalog.update(sources)).read, 1);
  // Before, the whole second was taken as a file system of seconds: the file was kept racy,
  // and this update read it again, for doubt alone.
  assertEquals((await catalog.update(sources)).read, 0);
  const session = catalog.sessions(sources).find((found) => found.path === path);
  assertEquals(session?.firstPrompt, REWRITTEN);
});

/**
 * A home whose three files the catalog has read, the first then grown by a turn and given the
 * time `timeOf(now)` (in ms, never a whole second: a file system that keeps ms); disposed with
 * its catalog.
 */
async function grownWithTime(timeOf: (now: number) => number) {
  const home = await catalogHome();
  for (const file of home.files) await appendLines(file, 100);
  const catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  // The first update loads the readers: the next one reads at once.
  assertEquals((await catalog.update(sources)).read, 3);
  const file = home.files[0]!;
  await goOn(file, 0);
  let time = timeOf(Date.now());
  if (time % 1000 === 0) time--;
  await Deno.utime(file.path, new Date(time), new Date(time));
  return {
    home,
    catalog,
    sources,
    file,
    time,
    async [Symbol.asyncDispose]() {
      catalog[Symbol.dispose]();
      await home[Symbol.asyncDispose]();
    },
  };
}

Deno.test("Catalog.update() reads a file written in the tick of its walk once that tick is past: the next update costs a stat", async () => {
  // Written 5 ms ago.
  await using grown = await grownWithTime((now) => now - 5);
  const { catalog, sources, time } = grown;
  let readAt = 0;
  const read = await catalog.update(sources, { onProgress: () => readAt ||= Date.now() });
  assertEquals([read.read, read.grown], [0, 1]);
  assert(readAt >= time + 50, `read ${readAt - time} ms after its write`);
  const again = await catalog.update(sources);
  assertEquals([again.read, again.grown], [0, 0]);
});

Deno.test("Catalog.update() reads a file whose time is ahead of the clock once, 50 ms after its stat: the next update costs a stat, and a write after it is read", async () => {
  // An hour ahead (a writer's clock over NFS).
  await using grown = await grownWithTime((now) => now + 3_600_000);
  const { home, catalog, sources, file } = grown;
  const started = Date.now();
  let readAt = 0;
  const read = await catalog.update(sources, { onProgress: () => readAt ||= Date.now() });
  assertEquals([read.read, read.grown], [0, 1]);
  assert(readAt >= started + 50, `read ${readAt - started} ms after the update began`);
  const again = await catalog.update(sources);
  assertEquals([again.read, again.grown], [0, 0]);
  // Written to again on this machine: its time is this clock's, and the growth is read.
  await goOn(file, 1);
  const later = await catalog.update(sources);
  assertEquals([later.read, later.grown], [0, 1]);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
});

Deno.test("Catalog.update() reads whole a file rewritten in place at the same size with a later time, the change before its last 4 KB (as Gemini CLI rewrites its session)", async () => {
  await using home = await catalogHome();
  const file = home.files[0]!;
  await appendLines(file, 100);
  for (let n = 0; Deno.statSync(file.path).size <= 3 * 4096; n++) await goOn(file, n);
  const old = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  await Deno.utime(file.path, new Date(old), new Date(old));
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  assertEquals((await catalog.update(sources)).read, 1);
  const [ino, size] = statOf(file.path);
  await rewriteInPlace(file.path, new Date(old + 1000));
  assertEquals(statOf(file.path), [ino, size, old + 1000]);
  const again = await catalog.update(sources);
  assertEquals([again.read, again.grown], [1, 0]);
  const session = catalog.sessions(sources).find((found) => found.path === file.path);
  assertEquals(session?.firstPrompt, REWRITTEN);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
});

Deno.test("Catalog.update() asked for the text of a grown rollout whose last continued read kept no state where its rows stop makes its rows from its start", async () => {
  // The property test's case (seed -2045236209): a turn that goes on, read with its text; a
  // line said again, read by a listing (its facts continued, its rows stopping); two lines more.
  await using home = await catalogHome();
  using kept = Catalog.open({ path: join(home.dir, "kept.sqlite") });
  for (const file of home.files) await appendLines(file, 4);
  await kept.update(await home.sources());
  const rollout = home.files[2]!;
  await goOn(rollout, 0);
  await kept.update(await home.sources());
  await repeatLine(rollout, 127231376);
  await kept.update(await home.sources(), { text: false });
  await appendLines(rollout, 2);
  const sources = await home.sources();
  const grown = await kept.update(sources);
  assertEquals([grown.grown, grown.fallbacks], [1, 0]);
  const texted = kept.db.prepare("SELECT texted FROM files WHERE path = ?").get(rollout.path);
  assertEquals(texted?.texted, 1);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(kept, sources), catalogAnswers(fresh, sources));
});
