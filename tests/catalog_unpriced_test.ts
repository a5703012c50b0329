import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Catalog } from "../src/catalog/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { reportColumns } from "../src/catalog/_facts.ts";
import { assert, assertEquals } from "./_assert.ts";
import { CORPUS, CORPUS_MISSING, corpusSources } from "./_corpus.ts";
import { homeFiles } from "./_search_oracle.ts";

const ROOT = new URL("../", import.meta.url);

/**
 * Runs `code` in a new process where the price table's module throws as it loads: what the
 * process prints, and whether it failed.
 */
async function withoutPriceTable(dir: string, code: string) {
  const stub = join(dir, "no_prices.ts");
  await Deno.writeTextFile(stub, 'throw new Error("the price table was loaded");\n');
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const map = join(dir, "import_map.json");
  const prices = new URL("src/usage/_prices.ts", ROOT).href;
  await Deno.writeTextFile(map, JSON.stringify({ imports: { ...config.imports, [prices]: stub } }));
  const script = join(dir, "script.ts");
  await Deno.writeTextFile(script, code);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", `--import-map=${map}`, script],
    cwd: fileURLToPath(ROOT),
    // No prices kept by an earlier process (they price a file without the table).
    env: { TURNLOG_CATALOG: join(dir, "catalog.sqlite") },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    success: out.success,
    text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

Deno.test({
  name:
    "Catalog.update() builds the facts of the real files without loading the price table, where inspectSession() loads it",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "turnlog-unpriced-test-" });
    try {
      const sources = await corpusSources(dir);
      const catalog = new URL("src/catalog/mod.ts", ROOT).href;
      const inspect = new URL("src/inspect/mod.ts", ROOT).href;
      const built = await withoutPriceTable(
        dir,
        `import { Catalog } from ${JSON.stringify(catalog)};
using catalog = Catalog.open({ path: ${JSON.stringify(join(dir, "catalog.sqlite"))} });
await catalog.update(${JSON.stringify(sources)});
const rows = catalog.db.prepare("SELECT count(*) AS n FROM files WHERE turns > 0 AND tokens IS NOT NULL").get();
console.log(JSON.stringify(rows));
`,
      );
      assert(built.success, built.text);
      const { n } = JSON.parse(built.text);
      assert(n >= 4, built.text);
      // The same stub stops a priced read: the process above did not load the table.
      const rollout = join(dir, "codex", "2026", "02", "23");
      const first = [...Deno.readDirSync(rollout)][0]!.name;
      const priced = await withoutPriceTable(
        dir,
        `import { inspectSession } from ${JSON.stringify(inspect)};
await inspectSession(${JSON.stringify(join(rollout, first))});
`,
      );
      assertEquals(priced.success, false);
      assert(priced.text.includes("the price table was loaded"), priced.text);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "Catalog.update() keeps the facts a priced inspectSession() reports of each real file: turns, verdict, tokens, models",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "turnlog-unpriced-test-" });
    try {
      const sources = await corpusSources(dir);
      using catalog = Catalog.open({ path: join(dir, "catalog.sqlite") });
      await catalog.update(sources);
      const rows = catalog.db.prepare(
        "SELECT path, turns, healthy, verdict, findings, tokens, models, forks FROM files ORDER BY path",
      ).all() as Record<string, unknown>[];
      assert(rows.length >= 8, `${rows.length} files`);
      let costed = 0;
      for (const row of rows) {
        const report = await inspectSession(row.path as string);
        if (report.session.cost?.usd) costed++;
        const { turns, healthy, verdict, findings, tokens, models, forks } = reportColumns(report);
        assertEquals({ ...row }, {
          path: row.path,
          turns,
          healthy,
          verdict,
          findings,
          tokens,
          models,
          forks,
        });
      }
      // Files with a price are among them: what pricing could have changed was there to change.
      assert(costed >= 4, `${costed} files priced`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "inspectSession() with priced false reports a real rollout as it does priced, its cost aside",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    const paths = (await homeFiles(join(CORPUS, "codex"))).filter((p) => p.includes("rollout-"));
    for (const path of paths) {
      const priced = await inspectSession(path);
      const unpriced = await inspectSession(path, { priced: false });
      assert(priced.session.cost?.usd, `${path} has a cost`);
      assertEquals(unpriced.session.cost, undefined);
      assertEquals(unpriced.turns.some((turn) => turn.cost !== undefined), false);
      const strip = (report: typeof priced) => ({
        ...report,
        session: { ...report.session, cost: undefined },
        turns: report.turns.map(({ cost: _, ...turn }) => turn),
      });
      assertEquals(strip(unpriced), strip(priced));
    }
  },
});
