/**
 * The catalog's continued facts on real files: every Codex rollout and Claude Code transcript
 * of the shared corpus written in six parts (cut at line ends, then anywhere: torn lines), the
 * catalog updated after each (a grown file is continued from its last turn where its lines allow
 * it), then held to a catalog made from the whole file at once.
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
      const bytes = await Deno.readFile(path);
      const lineEnds = [...bytes.keys()].filter((at) => bytes[at] === 0x0a).map((at) => at + 1);
      // Six parts cut at line ends, then six cut anywhere (a torn last line waits).
      const cuts = [
        Array.from({ length: 6 }, (_, k) => lineEnds[Math.floor(lineEnds.length * k / 6)] ?? 0),
        Array.from({ length: 6 }, (_, k) => Math.floor(bytes.length * k / 6)),
      ];
      for (const starts of cuts) {
        await using dir = await tempDir();
        const place = placeOf(dir.path, path);
        if (place === null) continue;
        files++;
        await Deno.mkdir(join(place.to, ".."), { recursive: true });
        await Deno.writeFile(place.to, new Uint8Array(0));
        using kept = Catalog.open({ path: join(dir.path, "kept.sqlite") });
        for (const [k, start] of starts.entries()) {
          const part = bytes.subarray(start, starts[k + 1] ?? bytes.length);
          await Deno.writeFile(place.to, part, { append: true });
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
    }
    assert(files > 40 && continued > 0, `${files} writings, ${continued} continued`);
  },
);
