import fc from "fast-check";
import { join } from "node:path";
import { Catalog } from "../src/catalog/mod.ts";
import { assertEquals } from "./_assert.ts";
import {
  appendLines,
  archiveHome,
  catalogAnswers,
  catalogHome,
  deleteFile,
  rewriteFile,
  tearLine,
} from "./_catalog_home.ts";

/** Runs per property; `TURNLOG_PROPERTY_RUNS` raises it (the faults task runs many more). */
const RUNS = Number(Deno.env.get("TURNLOG_PROPERTY_RUNS") ?? 25);

const file = fc.integer({ min: 0, max: 2 });
const step = fc.oneof(
  fc.record({ op: fc.constant("append" as const), file, count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant("tear" as const), file }),
  fc.record({ op: fc.constant("rewrite" as const), file, drop: fc.nat() }),
  fc.record({ op: fc.constant("delete" as const), file }),
  fc.record({ op: fc.constant("archive" as const) }),
  fc.record({ op: fc.constant("update" as const) }),
  fc.record({ op: fc.constant("facts" as const) }),
);

Deno.test("Catalog.update() answers as a fresh full read after appends, torn tails, rewrites, deletions, archive runs and updates without text", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
      await using home = await catalogHome();
      using kept = Catalog.open({ path: join(home.dir, "kept.sqlite") });
      for (const s of steps) {
        const target = "file" in s ? home.files[s.file]! : undefined;
        if (s.op === "append") await appendLines(target!, s.count);
        else if (s.op === "tear") await tearLine(target!);
        else if (s.op === "rewrite") await rewriteFile(target!, s.drop);
        else if (s.op === "delete") await deleteFile(target!);
        else if (s.op === "archive") await archiveHome(home);
        else if (s.op === "facts") await kept.update(await home.sources(), { text: false });
        else await kept.update(await home.sources());
      }
      const sources = await home.sources();
      await kept.update(sources);
      using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
      await fresh.update(sources);
      assertEquals(catalogAnswers(kept, sources), catalogAnswers(fresh, sources));
    }),
    { numRuns: RUNS },
  );
});
