/**
 * The kept prices (`src/usage/_kept_prices.ts`): a new process prices a session's responses
 * from the prices an earlier one was given by the table, equal to the table's own answers, and
 * loads the table only for what is not kept (a new model or day, tiered prices, prices that
 * change within a day, a time that is no date).
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir, writePricedTranscript } from "./_helpers.ts";
import { inspect } from "./_cli.ts";
import { loadPriceBook, PRICE_TABLE } from "../src/usage/mod.ts";
import { readKeptPrices } from "../src/usage/_kept_prices.ts";

const ASKED = [
  ["claude-opus-4-5-20251101", "anthropic", "2026-01-05T00:00:00Z"],
  ["claude-opus-4-5-20251101", "anthropic", "2026-01-05T09:00:00Z"],
  ["claude-opus-4-5-20251101", "anthropic", "2026-01-06T00:00:00Z"],
  ["claude-sonnet-4-20250514", null, "2026-01-06T00:00:00Z"],
  ["gpt-5.3-codex", "openai", "2026-01-06T00:00:00Z"],
  // Tiered: priced by each request's size.
  ["gpt-5.5", "openai", "2026-01-06T00:00:00Z"],
  ["gemini-2.5-pro", "google", "2026-01-06T01:00:00Z"],
  // Off-peak prices from 16:30 to 00:30: not one price a day.
  ["deepseek-chat", "deepseek", "2026-01-06T10:00:00Z"],
  ["deepseek-chat", "deepseek", "2026-01-06T20:00:00Z"],
  ["scripted", "embedded", "2026-01-06T01:00:00Z"],
  // No date: the table prices it as of now.
  ["gpt-5.3-codex", "openai", "2026"],
] as const;

/** What `readKeptPrices(path)` leaves to the table: the asked prices it answers undefined. */
function notKept(path: string) {
  const kept = readKeptPrices(path);
  const tokens = {
    input: 1234,
    output: 567,
    cacheRead: 8910,
    cacheCreation: 0,
    reasoningOutput: 0,
  };
  const left = ASKED.filter(([model, provider, time]) =>
    kept.price(tokens, model, provider, time) === undefined
  ).map(([model, , time]) => `${model} ${time}`);
  return { left, tableLoaded: kept.tableLoaded };
}

Deno.test("readKeptPrices() prices every response as a fresh PriceBook does, kept or from the table: flat, tiered, unpriced, off-peak and undated", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "prices.json");
  for (const input of [1234, 300_000]) {
    const tokens = { input, output: 567, cacheRead: 8910, cacheCreation: 0, reasoningOutput: 0 };
    const first = readKeptPrices(path);
    await first.loadTable();
    const asked = [...ASKED, ...ASKED.toReversed()];
    for (const [model, provider, time] of asked) {
      const fresh = (await loadPriceBook()).price(tokens, model, provider, time);
      assertEquals(first.price(tokens, model, provider, time), fresh, `${model} ${time}`);
    }
    first.save();
    // A later process: from the kept prices where they are, else from the table.
    const again = readKeptPrices(path);
    for (const [model, provider, time] of asked) {
      const fresh = (await loadPriceBook()).price(tokens, model, provider, time);
      let kept = again.price(tokens, model, provider, time);
      if (kept === undefined) {
        await again.loadTable();
        kept = again.price(tokens, model, provider, time);
      }
      assertEquals(kept, fresh, `${model} ${time} kept`);
    }
  }
  // What a process reading the file asks the table for: tiered, off-peak and undated prices.
  assertEquals(notKept(path), {
    left: [
      "gpt-5.5 2026-01-06T00:00:00Z",
      "gemini-2.5-pro 2026-01-06T01:00:00Z",
      "deepseek-chat 2026-01-06T10:00:00Z",
      "deepseek-chat 2026-01-06T20:00:00Z",
      "gpt-5.3-codex 2026",
    ],
    tableLoaded: false,
  });
  const file = JSON.parse(await Deno.readTextFile(path));
  assertEquals(file.table, PRICE_TABLE);
  assertEquals(file.rates["embedded scripted 2026-01-06"], "unpriced");
  assertEquals(file.rates["openai gpt-5.5 2026-01-06"], "tiered");
  assertEquals(file.rates["deepseek deepseek-chat 2026-01-06"], "tiered");
});

Deno.test("readKeptPrices() keeps nothing of another table's prices or of a torn file; save writes the file whole", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "prices.json");
  const rates = { input: 1, output: 0, cacheRead: 0, cacheWrite: 0 };
  const all = ASKED.map((
    [model, provider, time],
  ) => [`${provider ?? ""} ${model} ${time.slice(0, 10)}`, rates]);
  await Deno.writeTextFile(
    path,
    JSON.stringify({ table: "@pydantic/genai-prices 0.0.1", rates: Object.fromEntries(all) }),
  );
  assertEquals(notKept(path).left.length, ASKED.length);
  await Deno.writeTextFile(
    path,
    JSON.stringify({ table: PRICE_TABLE, rates: Object.fromEntries(all) }).slice(0, 80),
  );
  assertEquals(notKept(path).left.length, ASKED.length);
  const kept = readKeptPrices(path);
  await kept.loadTable();
  const tokens = { input: 1000, output: 0, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0 };
  assertEquals(kept.price(tokens, "gpt-5.3-codex", "openai", "2026-02-23T12:00:00Z"), 0.00175);
  kept.save();
  assertEquals(JSON.parse(await Deno.readTextFile(path)).rates, {
    "openai gpt-5.3-codex 2026-02-23": {
      input: 1.75e-6,
      output: 1.4e-5,
      cacheRead: 1.75e-7,
      cacheWrite: 1.75e-6,
    },
  });
  assertEquals([...Deno.readDirSync(dir.path)].map((entry) => entry.name), ["prices.json"]);
});

Deno.test("inspectSession() in a new process prices from the prices kept beside the catalog by the first: the same report, and what is kept is what it prices by", async () => {
  await using dir = await tempDir();
  const path = await writePricedTranscript(dir.path);
  const env = { TURNLOG_CATALOG: join(dir.path, "catalog.sqlite") };
  const first = await inspect(["--json", path], env);
  assertEquals(first.code, 0, first.stderr);
  const kept = join(dir.path, "catalog.sqlite-prices.json");
  const file = JSON.parse(await Deno.readTextFile(kept));
  assertEquals(Object.keys(file.rates), ["anthropic claude-opus-4-5-20251101 2026-01-23"]);
  const second = await inspect(["--json", path], env);
  assertEquals(second.stdout, first.stdout);
  const cost = (ran: { stdout: string }) => JSON.parse(ran.stdout).session.cost.usd;
  assert(cost(first) > 0);
  // The kept price made a dollar an input token: the next process prices from it alone.
  file.rates["anthropic claude-opus-4-5-20251101 2026-01-23"] = {
    input: 1,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
  };
  await Deno.writeTextFile(kept, JSON.stringify(file));
  assertEquals(cost(await inspect(["--json", path], env)), 1000);
});

/** `inspectSession(path)` as a project that imports turnlog calls it: in `cwd`, with `env`. */
async function inspectAsLibrary(path: string, cwd: string, env: Record<string, string> = {}) {
  const script = join(cwd, "main.ts");
  const face = new URL("../src/mod.ts", import.meta.url).href;
  await Deno.writeTextFile(
    script,
    `import { inspectSession } from "${face}";\n` +
      `console.log((await inspectSession(Deno.args[0])).session.cost?.usd);\n`,
  );
  const config = new URL("../deno.json", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${config}`, "-A", script, path],
    cwd,
    env: { TURNLOG_CATALOG: "", TURNLOG_SESSIONS_DIR: "", ...env },
  }).output();
  assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  return Number(new TextDecoder().decode(output.stdout));
}

Deno.test("a library caller's inspectSession() prices in memory: no file is written in its folder, unless it named the catalog", async () => {
  await using dir = await tempDir();
  const path = await writePricedTranscript(dir.path);
  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  const cost = await inspectAsLibrary(path, project);
  assert(cost > 0);
  assertEquals([...Deno.readDirSync(project)].map((entry) => entry.name), ["main.ts"]);
  // A caller that names the catalog keeps the prices beside it, as the command does.
  const catalog = join(dir.path, "elsewhere.sqlite");
  assertEquals(await inspectAsLibrary(path, project, { TURNLOG_CATALOG: catalog }), cost);
  const kept = JSON.parse(await Deno.readTextFile(`${catalog}-prices.json`));
  assertEquals(Object.keys(kept.rates), ["anthropic claude-opus-4-5-20251101 2026-01-23"]);
  assertEquals([...Deno.readDirSync(project)].map((entry) => entry.name), ["main.ts"]);
});
