import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Catalog, CATALOG_KILL_AT_ENV } from "../src/catalog/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { appendLines, catalogAnswers, catalogHome, rewriteFile } from "./_catalog_home.ts";

const CLI = fileURLToPath(new URL("../cli/turnlog.ts", import.meta.url));

/** Runs `turnlog search` over the home as a user would; the catalog at `catalog`. */
async function search(
  dir: string,
  catalog: string,
  extra: Record<string, string> = {},
  flags: string[] = [],
) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "search", "--claude", "--codex", ...flags, "files"],
    env: {
      HOME: dir,
      TURNLOG_SESSIONS_DIR: join(dir, "sessions"),
      TURNLOG_CATALOG: catalog,
      NO_COLOR: "1",
      // The runs have another HOME: Deno's cache stays where it is.
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
      PATH: Deno.env.get("PATH") ?? "",
      ...extra,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: out.code, signal: out.signal, stdout: new TextDecoder().decode(out.stdout) };
}

Deno.test("Catalog.update() killed (SIGKILL) at any write step leaves a catalog the next command uses, never a wrong answer", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 6);
  const path = join(home.dir, "catalog.sqlite");
  let kills = 0;
  for (const at of [1, 2, 3, 4, 5, 7, 9, 11]) {
    // Each round changes the home: appends (a grown file) and a repair's rewrite.
    await appendLines(home.files[at % 3]!, 3);
    if (at % 2 === 1) await rewriteFile(home.files[(at + 1) % 3]!, at);
    const killed = await search(home.dir, path, { [CATALOG_KILL_AT_ENV]: String(at) });
    if (killed.signal === "SIGKILL") kills++;
    // The next command answers as a search without the catalog does.
    const next = await search(home.dir, path);
    const scanned = await search(home.dir, path, {}, ["--no-catalog"]);
    assertEquals(next.stdout, scanned.stdout, `killed at step ${at}`);
    // And the catalog it left equals one made from nothing.
    const sources = await home.sources();
    using kept = Catalog.open({ path });
    await kept.update(sources);
    using fresh = Catalog.open({ path: join(home.dir, `fresh-${at}.sqlite`) });
    await fresh.update(sources);
    assertEquals(catalogAnswers(kept, sources), catalogAnswers(fresh, sources), `step ${at}`);
  }
  assert(kills >= 6, `${kills} kills`);
});

Deno.test("Catalog.update() killed (SIGKILL) while the first search indexes the text a listing left leaves a catalog the next command uses", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, 12);
  const sources = await home.sources();
  let kills = 0;
  for (const at of [1, 2, 4, 6]) {
    const path = join(home.dir, `listed-${at}.sqlite`);
    {
      // A listing's update: the facts alone, no text.
      using listed = Catalog.open({ path });
      assertEquals((await listed.update(sources, { text: false })).read, 3);
    }
    const killed = await search(home.dir, path, { [CATALOG_KILL_AT_ENV]: String(at) });
    if (killed.signal === "SIGKILL") kills++;
    const next = await search(home.dir, path);
    const scanned = await search(home.dir, path, {}, ["--no-catalog"]);
    assertEquals(next.stdout, scanned.stdout, `killed at step ${at}`);
    using kept = Catalog.open({ path });
    assertEquals((await kept.update(sources)).texted, 0, `step ${at}: all indexed`);
    using fresh = Catalog.open({ path: join(home.dir, `fresh-listed-${at}.sqlite`) });
    await fresh.update(sources);
    assertEquals(catalogAnswers(kept, sources), catalogAnswers(fresh, sources), `step ${at}`);
  }
  assertEquals(kills, 4);
});
