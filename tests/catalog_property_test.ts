import fc from "fast-check";
import { join } from "node:path";
import { Catalog } from "../src/catalog/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import {
  appendLines,
  archiveHome,
  catalogAnswers,
  catalogHome,
  deleteFile,
  editInPlace,
  goOn,
  repeatLine,
  rewriteFile,
  tearLine,
} from "./_catalog_home.ts";

/** Runs per property; `TURNLOG_PROPERTY_RUNS` raises it (the faults task runs many more). */
const RUNS = Number(Deno.env.get("TURNLOG_PROPERTY_RUNS") ?? 25);

const file = fc.integer({ min: 0, max: 2 });
const step = fc.oneof(
  fc.record({ op: fc.constant("append" as const), file, count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ op: fc.constant("tear" as const), file }),
  fc.record({ op: fc.constant("go on" as const), file }),
  fc.record({ op: fc.constant("go on" as const), file }),
  fc.record({ op: fc.constant("repeat" as const), file, at: fc.nat() }),
  fc.record({ op: fc.constant("rewrite" as const), file, drop: fc.nat() }),
  fc.record({ op: fc.constant("edit" as const), file, text: fc.boolean() }),
  fc.record({ op: fc.constant("delete" as const), file }),
  fc.record({ op: fc.constant("skew" as const), file, ms: fc.integer({ min: 1, max: 999 }) }),
  fc.record({ op: fc.constant("archive" as const) }),
  fc.record({ op: fc.constant("update" as const) }),
  fc.record({ op: fc.constant("update" as const) }),
  fc.record({ op: fc.constant("update" as const) }),
  fc.record({ op: fc.constant("facts" as const) }),
);

Deno.test("Catalog.update() answers as a fresh full read after appends, turns that go on, torn tails, rewinds and forks, rewrites, rewrites in place at the same size, times ahead of the clock, deletions, archive runs and updates without text", async () => {
  // Grown files whose facts were continued from their last turn, and those read whole.
  let continued = 0, fallbacks = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 14 }), async (steps) => {
      await using home = await catalogHome();
      using kept = Catalog.open({ path: join(home.dir, "kept.sqlite") });
      let n = 0;
      // Each file begins with a few lines the catalog has read.
      for (const file of home.files) await appendLines(file, 4);
      await kept.update(await home.sources());
      for (const s of steps) {
        const target = "file" in s ? home.files[s.file]! : undefined;
        if (s.op === "append") await appendLines(target!, s.count);
        else if (s.op === "go on") await goOn(target!, n++);
        else if (s.op === "repeat") await repeatLine(target!, s.at);
        else if (s.op === "tear") await tearLine(target!);
        else if (s.op === "rewrite") await rewriteFile(target!, s.drop);
        else if (s.op === "edit") {
          // Read as it was and as the edit left it, before it grows: an edit before the 4 KiB
          // the tail hash covers, with an append since the file was read, is taken as an
          // append (the JSONL tools only append; a JSON file rewritten in place changes its tail).
          await kept.update(await home.sources(), { text: s.text });
          if (await editInPlace(target!)) {
            await kept.update(await home.sources(), { text: s.text });
          }
        } else if (s.op === "skew") {
          // Its time an hour and `ms` ahead of this clock (a writer's over NFS), of ms, not seconds.
          const ahead = new Date((Math.floor(Date.now() / 1000) + 3600) * 1000 + s.ms);
          await Deno.utime(target!.path, ahead, ahead).catch(() => {});
        } else if (s.op === "delete") await deleteFile(target!);
        else if (s.op === "archive") await archiveHome(home);
        else {
          const text = s.op === "facts" ? { text: false } : {};
          const summary = await kept.update(await home.sources(), text);
          continued += summary.grown - summary.fallbacks;
          fallbacks += summary.fallbacks;
        }
      }
      const sources = await home.sources();
      const summary = await kept.update(sources);
      continued += summary.grown - summary.fallbacks;
      fallbacks += summary.fallbacks;
      using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
      await fresh.update(sources);
      assertEquals(catalogAnswers(kept, sources), catalogAnswers(fresh, sources));
    }),
    { numRuns: RUNS },
  );
  // The grown files went the continued way (the whole way, taken by a rewind or a fork, is
  // held by tests/catalog_grow_test.ts: a random run may not take it).
  assert(continued > 0, `${continued} continued, ${fallbacks} read whole`);
});
