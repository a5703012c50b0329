/**
 * usage over turnlog's store in PostgreSQL: the same tokens and cost as over the same sessions
 * in files, counted each time (a database's sessions change with no file to tell), and a
 * command that names the database without its password. Ignored, saying so, when the
 * PostgreSQL server binaries are not installed.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { fileCluster, freshStore } from "./_postgres_helpers.ts";
import { tempDir } from "./_helpers.ts";
import { importTurnlogFile } from "../src/store/mod.ts";
import { Catalog } from "../src/catalog/mod.ts";
import { collectCatalogUsage, collectUsage, usageReport } from "../src/usage/mod.ts";
import { run } from "../cli/usage.ts";

const cluster = await fileCluster("usage_postgres_test.ts");
const EXAMPLES = fileURLToPath(new URL("../sessions/2026/01/15/", import.meta.url));

Deno.test({
  name:
    "collectUsage() counts a database store's sessions as the same sessions' files, and usage --store postgres:// reports them",
  ignore: cluster === undefined,
  async fn() {
    await using store = await freshStore(cluster!);
    await using dir = await tempDir();
    const day = join(dir.path, "2026", "01", "15");
    await Deno.mkdir(day, { recursive: true });
    for await (const entry of Deno.readDir(EXAMPLES)) {
      await Deno.copyFile(join(EXAMPLES, entry.name), join(day, entry.name));
      await importTurnlogFile(store, join(EXAMPLES, entry.name));
    }
    const report = async (sources: { store: string }) => {
      const { rows, skipped } = await collectUsage({ ...sources, fold: true });
      assertEquals(skipped, []);
      const { rows: days, totals } = usageReport(rows, "daily", { breakdown: true });
      return { days, totals, sessions: usageReport(rows, "session").rows.length };
    };
    const inFiles = await report({ store: dir.path });
    assert(inFiles.totals.totalTokens > 0, "the example sessions used tokens");
    assertEquals(await report({ store: store.url }), inFiles);
    // Through the catalog: counted each time, the same.
    using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
    const sources = [{ format: "turnlog" as const, root: store.url, flags: ["--store"] }];
    for (const _ of [1, 2]) {
      const got = await collectCatalogUsage(catalog, sources);
      assertEquals(usageReport(got.rows, "daily").totals, inFiles.totals);
    }
    let stdout = "";
    let stderr = "";
    const code = await run(["--store", store.url, "daily", "--json", "--no-catalog"], {
      out: (text) => void (stdout += text),
      err: (text) => void (stderr += text),
    });
    assertEquals([code, stderr], [0, ""]);
    assertEquals(JSON.parse(stdout).totals, inFiles.totals);
    assert(!stdout.includes(cluster!.password), "the password is never printed");
  },
});
