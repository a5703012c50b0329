/**
 * The catalog's continued facts on real files: every Codex rollout and Claude Code transcript
 * of the shared corpus written in six parts, the catalog updated after each (a grown file is
 * continued from its last turn where its lines allow it), then held to a catalog made from the
 * whole file at once.
 */
import { basename, join, relative } from "node:path";
import { Catalog, type CatalogSource } from "../src/catalog/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { catalogAnswers } from "./_catalog_home.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { tempDir } from "./_helpers.ts";
import { needing } from "./_needs.ts";

/** Where a corpus file goes in a home its tool's walk finds it in, and its source. */
function placeOf(dir: string, path: string): { to: string; source: CatalogSource } | null {
  const name = basename(path);
  if (relative(CORPUS, path).startsWith("codex/")) {
    if (!name.startsWith("rollout-")) return null;
    const root = join(dir, "sessions");
    return { to: join(root, "2026", "02", "23", name), source: { format: "codex", root } };
  }
  const root = join(dir, "projects");
  return { to: join(root, "-work-p", name), source: { format: "claude-code", root } };
}

Deno.test(
  needing(
    "Catalog.update() continues the corpus's real files part by part to the same answers as a whole read",
    CORPUS_MISSING,
  ),
  async () => {
    let continued = 0, fallbacks = 0, files = 0;
    for await (const path of corpusFiles(CORPUS)) {
      await using dir = await tempDir();
      const place = placeOf(dir.path, path);
      if (place === null) continue;
      files++;
      const lines = (await Deno.readTextFile(path)).split(/(?<=\n)/);
      await Deno.mkdir(join(place.to, ".."), { recursive: true });
      await Deno.writeTextFile(place.to, "");
      using kept = Catalog.open({ path: join(dir.path, "kept.sqlite") });
      const step = Math.max(1, Math.ceil(lines.length / 6));
      for (let at = 0; at < lines.length; at += step) {
        await Deno.writeTextFile(place.to, lines.slice(at, at + step).join(""), { append: true });
        const summary = await kept.update([place.source]);
        continued += summary.grown - summary.fallbacks;
        fallbacks += summary.fallbacks;
      }
      using fresh = Catalog.open({ path: join(dir.path, "fresh.sqlite") });
      await fresh.update([place.source]);
      assertEquals(
        catalogAnswers(kept, [place.source]),
        catalogAnswers(fresh, [place.source]),
        relative(CORPUS, path),
      );
    }
    assert(files > 20 && continued > 0, `${files} files, ${continued} continued`);
  },
);
