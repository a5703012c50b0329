/**
 * `usage`: tokens counted as each tool counts them (Claude Code's split lines once, its subagents
 * with their session, Codex's repeated `token_count`s once and its `token_usage_record`s, Gemini's
 * messages once per id), priced offline or by the tool's own figure (Claude Code's `cost-state`),
 * a model without a price never counted as $0, days in the local time zone, and the command's
 * flags and errors.
 */
import fc from "fast-check";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import {
  collectCatalogUsage,
  collectUsage,
  formatCost,
  loadPriceBook,
  PRICE_TABLE,
  reckonCost,
  renderUsage,
  turnFinder,
  usageJson,
  usageReport,
  type UsageRow,
  usageSessions,
} from "../src/usage/mod.ts";
import { type PlannedFile, UsagePool } from "../src/usage/_pool.ts";
import { USAGE_READERS } from "../src/formats/usage_readers.ts";
import { Catalog } from "../src/catalog/mod.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { searchSources } from "../src/search/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { GeminiSessionBuilder } from "../testing/formats/gemini_builder.ts";
import { PAGINATED_ID, paginatedKilledThenResumed } from "../testing/formats/codex_paginated.ts";
import { fatTime, ownTimesOnly, rewriteUnseen } from "./_racy.ts";

const USAGE = fileURLToPath(new URL("../cli/usage.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

const env = (vars: Record<string, string>) => ({
  get: (name: string) => vars[name],
});

/** A Claude Code home: one session of two responses (the first split over two lines) and a subagent. */
async function claudeHome(base: string, options: { costState?: boolean } = {}): Promise<string> {
  const home = join(base, "claude");
  const project = join(home, "projects", "-work-project");
  const main = new ClaudeTranscriptBuilder();
  main.user("Look around");
  main.assistant([{ text: "Reading." }, { toolUse: { id: "t1", name: "Task", input: {} } }], {
    usage: { input: 10, output: 50 },
  });
  main.toolResult("t1", "done", { result: { agentId: "a1" } });
  main.assistant([{ text: "Done." }], { usage: { input: 20, output: 7 } });
  if (options.costState) {
    main.meta({
      type: "cost-state",
      sessionId: CLAUDE_SESSION_ID,
      totalCostUSD: 0.5,
      modelUsage: {
        "claude-opus-4-5-20251101": { inputTokens: 30, outputTokens: 57, costUSD: 0.5 },
      },
    });
  }
  const sub = new ClaudeTranscriptBuilder({ sidechain: true, agentId: "a1" });
  sub.user("Find it");
  // A response id of its own (the builder numbers each transcript's from 1).
  sub.assistant([{ text: "Found." }], { usage: { input: 3, output: 4 }, messageId: "msg_sub1" });
  await Deno.mkdir(join(project, CLAUDE_SESSION_ID, "subagents"), { recursive: true });
  await Deno.writeTextFile(join(project, `${CLAUDE_SESSION_ID}.jsonl`), main.text());
  await Deno.writeTextFile(
    join(project, CLAUDE_SESSION_ID, "subagents", "agent-a1.jsonl"),
    sub.text(),
  );
  return home;
}

const tokensOf = (row: UsageRow) => [row.input, row.output, row.cacheCreation, row.cacheRead];

Deno.test("collectUsage() counts a Claude Code response split over lines once, with its last line's output, and a subagent's responses with its session", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path);
  const got = await collectUsage({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  assertEquals(got.sessions, 1);
  assertEquals(got.rows.map(tokensOf), [[10, 50, 100, 1000], [20, 7, 100, 1000], [
    3,
    4,
    100,
    1000,
  ]]);
  assertEquals(new Set(got.rows.map((row) => row.sessionId)), new Set([CLAUDE_SESSION_ID]));
  assertEquals(got.rows.map((row) => row.project), Array(3).fill("/work/project"));
  assertEquals(got.rows.map((row) => row.costSource), ["table", "table", "table"]);
  const session = usageReport(got.rows, "session").rows;
  assertEquals(session.map((row) => [row.key, row.totalTokens]), [[
    CLAUDE_SESSION_ID,
    60 + 27 + 7 + 3 * 1100,
  ]]);
});

Deno.test("collectUsage() takes Claude Code's cost-state as the session's cost per model, and the report says so", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path, { costState: true });
  const got = await collectUsage({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  assertEquals(got.rows.map((row) => row.costSource), ["tool", "tool", "tool"]);
  assertEquals(got.toolCostSources, ["Claude Code's cost-state"]);
  assertEquals(got.toolCosts.length, 1);
  const report = usageReport(got.rows, "daily");
  assertEquals(Math.round(report.totals.totalCost! * 1e9) / 1e9, 0.5);
  assertEquals(report.rows[0]!.costSources, ["tool"]);
  const text = renderUsage(report, { toolCosts: 1, toolCostSources: got.toolCostSources });
  assertEquals(
    text.split("\n").at(-2),
    "Costs: the tool's own figure (Claude Code's cost-state) for 1 session, the price table " +
      "@pydantic/genai-prices 0.1.8 (offline) for the rest.",
  );
});

Deno.test("usageReport() shows a model without a price as unpriced, never $0, and lists it once at the end", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "claude");
  const project = join(home, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const b = new ClaudeTranscriptBuilder({ model: "claude-nobody-knows-9" });
  b.user("hi");
  b.assistant([{ text: "a" }], { usage: { input: 1, output: 2 } });
  b.set({ model: "claude-opus-4-5-20251101" });
  b.assistant([{ text: "b" }], { usage: { input: 1, output: 2 } });
  b.set({ model: "claude-nobody-knows-9" });
  b.assistant([{ text: "c" }], { usage: { input: 1, output: 2 } });
  await Deno.writeTextFile(join(project, `${CLAUDE_SESSION_ID}.jsonl`), b.text());
  const got = await collectUsage({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  assertEquals(got.rows.map((row) => row.cost === null), [true, false, true]);
  const report = usageReport(got.rows, "model", { breakdown: true });
  assertEquals(report.unpricedModels, ["claude-nobody-knows-9"]);
  assertEquals(report.rows.map((row) => [row.key, row.totalCost === null]), [
    ["claude-nobody-knows-9", true],
    ["claude-opus-4-5-20251101", false],
  ]);
  const lines = renderUsage(report).split("\n");
  assertEquals(lines.filter((line) => line.startsWith("claude-nobody")).map((l) => l.at(-1)), [
    "d",
  ]);
  // A cost under a cent is not shown as $0 either.
  assertEquals(lines.filter((line) => line.includes("$0.00")), []);
  assertEquals(lines.filter((line) => line.includes("<$0.01")).length, 3);
  assertEquals(lines.filter((line) => line.includes("unpriced")).length, 3);
  assertEquals(
    lines.at(-2),
    "Unpriced (no price known, not counted as $0): claude-nobody-knows-9",
  );
  const json = usageJson(report) as { models: { totalCost: number | null }[] };
  assertEquals(json.models[0]!.totalCost, null);
});

Deno.test("formatCost() says unpriced for an unknown price and adds it to a known one", () => {
  assertEquals(formatCost(null, true), "unpriced");
  assertEquals(formatCost(2.345, false), "$2.35");
  assertEquals(formatCost(2.345, true), "$2.35 + unpriced");
  assertEquals(formatCost(0.0004, false), "<$0.01");
  assertEquals(formatCost(0, false), "$0.00");
});

Deno.test("collectUsage() adds a Codex rollout up to Codex's own total: token_usage_records once, a killed turn's too, a repeated token_count not again", async () => {
  await using dir = await tempDir();
  const rollout = paginatedKilledThenResumed();
  const lines = [...rollout.lines];
  // Codex writes a token_count again when only the rate limits changed: the same totals.
  const count = lines.findLast((line) => line.includes('"token_count"'))!;
  lines.push(count);
  const path = join(
    dir.path,
    "sessions",
    "2026",
    "12",
    "01",
    `rollout-2026-12-01T10-00-00-${PAGINATED_ID}.jsonl`,
  );
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  const got = await collectUsage({ homes: ["codex"], env: env({ CODEX_HOME: dir.path }) });
  const report = usageReport(got.rows, "daily");
  const own = rollout.threadUsage;
  assertEquals(
    [report.totals.inputTokens, report.totals.outputTokens, report.totals.totalTokens],
    [own.input_tokens, own.output_tokens, own.total_tokens],
  );
  assertEquals(got.rows.length, 2);
});

Deno.test("collectUsage() counts a Codex token_count without last_token_usage by the growth of its total", async () => {
  await using dir = await tempDir();
  const total = (input: number, output: number) => ({
    timestamp: "2026-02-23T11:40:42.097Z",
    type: "event_msg",
    payload: {
      type: "token_count",
      info: {
        total_token_usage: {
          input_tokens: input,
          cached_input_tokens: 0,
          output_tokens: output,
          reasoning_output_tokens: 0,
          total_tokens: input + output,
        },
      },
    },
  });
  const lines = [
    {
      timestamp: "2026-02-23T11:40:00.000Z",
      type: "session_meta",
      payload: { id: "x", cwd: "/p" },
    },
    { timestamp: "2026-02-23T11:40:01.000Z", type: "turn_context", payload: { model: "gpt-5.5" } },
    total(100, 10),
    total(100, 10),
    total(250, 30),
  ];
  const path = join(
    dir.path,
    "sessions/2026/02/23/rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl",
  );
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await Deno.writeTextFile(path, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  const got = await collectUsage({ homes: ["codex"], env: env({ CODEX_HOME: dir.path }) });
  assertEquals(got.rows.map((row) => [row.input, row.output, row.model, row.project]), [
    [100, 10, "gpt-5.5", "/p"],
    [150, 20, "gpt-5.5", "/p"],
  ]);
});

Deno.test("collectUsage() counts a Gemini message written again once, its cached tokens apart and its thoughts as output", async () => {
  await using dir = await tempDir();
  const session = new GeminiSessionBuilder().context().user("read it")
    .gemini({
      text: "Reading.",
      calls: [{ name: "read_file", wire: "w1", args: {}, output: "hello" }],
      tokens: { input: 130, output: 7, cached: 100, thoughts: 5 },
    });
  const chats = join(dir.path, ".gemini", "tmp", "project", "chats");
  await Deno.mkdir(chats, { recursive: true });
  await Deno.writeTextFile(join(chats, "session-2026-12-01T10-00-5a7e0c1d.jsonl"), session.text());
  const got = await collectUsage({ homes: ["gemini"], env: env({ GEMINI_CLI_HOME: dir.path }) });
  assertEquals(
    got.rows.map((row) => [row.input, row.cacheRead, row.output, row.reasoningOutput, row.model]),
    [[30, 100, 12, 5, "gemini-2.5-flash"]],
  );
  assertEquals(got.rows[0]!.cost !== null && got.rows[0]!.cost > 0, true);
});

async function usageCli(args: string[], vars: Record<string, string> = {}) {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG}`,
      "--allow-read",
      "--allow-env",
      USAGE,
      "--no-catalog",
      ...args,
    ],
    env: { NO_COLOR: "1", ...vars },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: ran.code, stdout: decode(ran.stdout), stderr: decode(ran.stderr) };
}

Deno.test("usage daily --json groups by the local day (TZ) and filters with --since and --until in both forms", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "claude");
  const project = join(home, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  // 22:00 UTC on 2026-01-23 is 03:30 on the 24th in Kolkata.
  const b = new ClaudeTranscriptBuilder({}, Date.UTC(2026, 0, 23, 22, 0, 0));
  b.user("hi");
  b.assistant([{ text: "a" }], { usage: { input: 1, output: 2 } });
  await Deno.writeTextFile(join(project, `${CLAUDE_SESSION_ID}.jsonl`), b.text());
  const vars = { CLAUDE_CONFIG_DIR: home };
  const days = async (tz: string, ...more: string[]) => {
    const ran = await usageCli(["daily", "--json", "--claude", ...more], { ...vars, TZ: tz });
    assertEquals(ran.code, 0, ran.stderr);
    return (JSON.parse(ran.stdout).daily as { date: string }[]).map((day) => day.date);
  };
  assertEquals(await days("UTC"), ["2026-01-23"]);
  assertEquals(await days("Asia/Kolkata"), ["2026-01-24"]);
  assertEquals(await days("Asia/Kolkata", "--since", "20260124", "--until", "2026-01-24"), [
    "2026-01-24",
  ]);
  assertEquals(await days("UTC", "--since", "2026-01-24"), []);
});

Deno.test("usage: a day that is not one, a report that does not exist and a missing folder each say what is wrong, exit 2", async () => {
  const day = await usageCli(["--since", "2026-13-01"]);
  assertEquals([day.code, day.stdout], [2, ""]);
  assertEquals(
    day.stderr,
    'turnlog usage: Invalid --since "2026-13-01": expected a day like 20260223 or 2026-02-23\n' +
      "Run ./denow task usage --help for the options.\n",
  );
  const kind = await usageCli(["weekly"]);
  assertEquals(kind.code, 2);
  assertEquals(
    kind.stderr.split("\n")[0],
    'turnlog usage: No report "weekly": daily, monthly, session, project, model',
  );
  const folder = await usageCli(["--sessions-dir", "/nonexistent/turnlog-usage"]);
  assertEquals(folder.code, 2);
  assertEquals(
    folder.stderr.split("\n")[0],
    "turnlog usage: No such folder: /nonexistent/turnlog-usage",
  );
});

Deno.test("collectCatalogUsage() equals a fresh read, cold and warm, after an append, and answers an unchanged home from the catalog without reading a session file", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path, { costState: true });
  const sources = await searchSources({
    homes: ["claude"],
    env: env({ CLAUDE_CONFIG_DIR: home }),
  });
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const fresh = () => collectUsage({ sources, fold: true });
  const plain = (got: Awaited<ReturnType<typeof fresh>>) => JSON.parse(JSON.stringify(got));
  assertEquals(plain(await collectCatalogUsage(catalog, sources)), plain(await fresh()));
  {
    using io = countIo();
    const warm = await collectCatalogUsage(catalog, sources);
    const reads = io.take().reads.filter((read) => read.path.endsWith(".jsonl"));
    assertEquals(reads, [], "an unchanged home is answered from the catalog");
    assertEquals(plain(warm), plain(await fresh()));
  }
  // A response appended: the file is read again, the answer a fresh read's.
  const path = join(home, "projects", "-work-project", `${CLAUDE_SESSION_ID}.jsonl`);
  const more = new ClaudeTranscriptBuilder({}, Date.UTC(2026, 0, 24, 9, 0, 0));
  more.assistant([{ text: "More." }], { usage: { input: 5, output: 6 }, messageId: "msg_more" });
  await Deno.writeTextFile(path, more.text(), { append: true });
  const after = await collectCatalogUsage(catalog, sources);
  assertEquals(plain(after), plain(await fresh()));
  // Folded: the three responses of 17:00 one row (the latest's time), the next day's another.
  assertEquals(after.rows.map((row) => [row.time, row.input, row.output]), [
    ["2026-01-23T17:00:04.000Z", 33, 61],
    ["2026-01-24T09:00:00.000Z", 5, 6],
  ]);
  {
    using io = countIo();
    const warm = await collectCatalogUsage(catalog, sources);
    assertEquals(io.take().reads.filter((read) => read.path.endsWith(".jsonl")), []);
    assertEquals(plain(warm), plain(after));
  }
});

Deno.test("collectCatalogUsage() reads again a file it counted in the tick of its last write on a file system of seconds, rewritten since in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const home = await claudeHome(dir.path);
  const sources = await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const fresh = () => collectUsage({ sources, fold: true });
  const plain = (got: Awaited<ReturnType<typeof fresh>>) => JSON.parse(JSON.stringify(got));
  const project = join(home, "projects", "-work-project");
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const subagent = join(project, CLAUDE_SESSION_ID, "subagents", "agent-a1.jsonl");
  // The file's kept responses: counted in the tick of its write, the subagent changed beside it
  // (so the count of the places as a whole is not the answer).
  let written = await fatTime(path);
  await collectCatalogUsage(catalog, sources);
  await rewriteUnseen(path, '"output_tokens":50', '"output_tokens":59', written);
  await Deno.writeTextFile(subagent, "\n", { append: true });
  let counted = await collectCatalogUsage(catalog, sources);
  assertEquals(counted.rows.reduce((sum, row) => sum + row.output, 0), 59 + 7 + 4);
  assertEquals(plain(counted), plain(await fresh()));
  // The count of the places as a whole, kept from a count in the tick of a file's write.
  written = await fatTime(path);
  await collectCatalogUsage(catalog, sources);
  await rewriteUnseen(path, '"output_tokens":59', '"output_tokens":58', written);
  counted = await collectCatalogUsage(catalog, sources);
  assertEquals(counted.rows.reduce((sum, row) => sum + row.output, 0), 58 + 7 + 4);
  assertEquals(plain(counted), plain(await fresh()));
});

Deno.test("collectCatalogUsage() keeps the responses of a file whose time is ahead of the clock once its tick is waited out: a count after another file changed reads that one alone", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path);
  const sources = await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const project = join(home, "projects", "-work-project");
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const subagent = join(project, CLAUDE_SESSION_ID, "subagents", "agent-a1.jsonl");
  // An hour ahead (a writer's clock over NFS), on a file system that keeps ms.
  let ahead = Date.now() + 3_600_000;
  if (ahead % 1000 === 0) ahead++;
  await Deno.utime(path, new Date(ahead), new Date(ahead));
  await collectCatalogUsage(catalog, sources);
  // The subagent changed beside it: the count of the places as a whole is not the answer.
  await Deno.writeTextFile(subagent, "\n", { append: true });
  using io = countIo();
  const again = await collectCatalogUsage(catalog, sources);
  const read = io.take().reads.filter((r) => r.path.endsWith(".jsonl")).map((r) => r.path);
  assertEquals([...new Set(read)], [subagent]);
  const fresh = await collectUsage({ sources, fold: true });
  assertEquals(JSON.parse(JSON.stringify(again)), JSON.parse(JSON.stringify(fresh)));
});

Deno.test("collectCatalogUsage() reads a file written in the tick of its stat once that tick is past: the next count reads no session file", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path);
  const sources = await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const path = join(home, "projects", "-work-project", `${CLAUDE_SESSION_ID}.jsonl`);
  // Written 5 ms ago, on a file system that keeps ms.
  let written = Date.now() - 5;
  if (written % 1000 === 0) written--;
  await Deno.utime(path, new Date(written), new Date(written));
  const counted = await collectCatalogUsage(catalog, sources);
  using io = countIo();
  const again = await collectCatalogUsage(catalog, sources);
  assertEquals(io.take().reads.filter((read) => read.path.endsWith(".jsonl")), []);
  assertEquals(JSON.parse(JSON.stringify(again)), JSON.parse(JSON.stringify(counted)));
});

Deno.test({
  ...needing(
    "collectUsage() folded per session, model and 15 minutes gives every report the responses give, to the cent",
    CORPUS_MISSING,
  ),
  async fn() {
    await using dir = await tempDir();
    const home = join(dir.path, "claude");
    await Deno.mkdir(home);
    await Deno.symlink(join(CORPUS, "claude", "projects"), join(home, "projects"));
    const sources = [
      ...await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) }),
      { format: "codex" as const, root: join(CORPUS, "codex"), flags: ["--sessions-dir"] },
    ];
    const rows = (await collectUsage({ sources })).rows;
    const folded = (await collectUsage({ sources, fold: true })).rows;
    assertEquals(folded.length * 4 < rows.length, true, `${folded.length} of ${rows.length}`);
    const cents = (report: ReturnType<typeof usageReport>) =>
      JSON.parse(
        JSON.stringify(report, (key, value) =>
          (key === "totalCost" || key === "cost") && value !== null
            ? Math.round(value * 100)
            : value),
      );
    for (const kind of ["daily", "monthly", "session", "project", "model"] as const) {
      assertEquals(
        cents(usageReport(folded, kind, { breakdown: true })),
        cents(usageReport(rows, kind, { breakdown: true })),
        kind,
      );
    }
  },
});

/** Sets every folder's and file's modification time under `root` to `at` (ms). */
async function age(root: string, at: number): Promise<void> {
  const when = new Date(at);
  for await (const entry of Deno.readDir(root)) {
    const path = join(root, entry.name);
    if (entry.isDirectory) await age(path, at);
    await Deno.utime(path, when, when);
  }
  await Deno.utime(root, when, when);
}

/** `usage ... --json` as a process with a catalog (the warm path is the process's start). */
async function usageJsonOf(args: string[], vars: Record<string, string>) {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${CONFIG}`, "-P=usage", USAGE, "--json", ...args],
    env: { NO_COLOR: "1", TZ: "UTC", ...vars },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(ran.stderr);
  assertEquals(ran.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(ran.stdout)) as { totals: { inputTokens: number } };
}

Deno.test("usage answers from the count it kept while no folder or file under its places changed (any report), and counts again after an append, a new session, another home or another price table", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path);
  const catalogPath = join(dir.path, "catalog.sqlite");
  const vars = { CLAUDE_CONFIG_DIR: home, TURNLOG_CATALOG: catalogPath, HOME: dir.path };
  const hour = 3_600_000;
  await age(home, Date.now() - 3 * hour);
  const input = async (...args: string[]) =>
    (await usageJsonOf([...args, "--claude"], vars)).totals.inputTokens;
  const cold = await input("daily");
  assertEquals(cold, 33);
  // The kept rows changed, and the count's own check of the files made to fail: an answer of
  // 1033 comes from the kept rows alone, with neither a session found nor a file read.
  const tamper = () => {
    const db = new DatabaseSync(catalogPath);
    db.exec(
      "UPDATE usage_folded SET input = input + 1000 WHERE rowid = (SELECT min(rowid) FROM usage_folded)",
    );
    db.exec("UPDATE usage_scopes SET files = '[]'");
    db.close();
  };
  tamper();
  assertEquals(await input("daily"), 1033);
  assertEquals(await input("model", "--breakdown", "--since", "2026-01-01"), 1033);
  // Kept by another version or price table (another turnlog): counted again.
  {
    const db = new DatabaseSync(catalogPath);
    db.exec("UPDATE usage_version SET kept_by = 'another price table'");
    db.close();
  }
  assertEquals(await input("daily"), 33);
  tamper();
  assertEquals(await input("daily"), 1033);
  // An append: the file changed, the count is made again (the figures a fresh read gives).
  const path = join(home, "projects", "-work-project", `${CLAUDE_SESSION_ID}.jsonl`);
  const more = new ClaudeTranscriptBuilder({}, Date.UTC(2026, 0, 24, 9, 0, 0));
  more.assistant([{ text: "More." }], { usage: { input: 5, output: 6 }, messageId: "msg_more" });
  await Deno.writeTextFile(path, more.text(), { append: true });
  await age(home, Date.now() - 2 * hour);
  assertEquals(await input("daily"), 38);
  tamper();
  assertEquals(await input("daily"), 1038);
  // A new session in a new project folder: a folder changed.
  const other = new ClaudeTranscriptBuilder({ sessionId: "cccccccc-0000-4000-8000-000000000003" });
  other.user("hi");
  other.assistant([{ text: "c" }], { usage: { input: 100, output: 1 }, messageId: "msg_c" });
  await Deno.mkdir(join(home, "projects", "-work-other"));
  await Deno.writeTextFile(
    join(home, "projects", "-work-other", "cccccccc-0000-4000-8000-000000000003.jsonl"),
    other.text(),
  );
  await age(home, Date.now() - 1 * hour);
  assertEquals(await input("daily"), 138);
  tamper();
  // Another home: the places were found from another CLAUDE_CONFIG_DIR.
  const second = await claudeHome(join(dir.path, "second"));
  await age(second, Date.now() - 3 * hour);
  assertEquals(
    (await usageJsonOf(["daily", "--claude"], { ...vars, CLAUDE_CONFIG_DIR: second })).totals
      .inputTokens,
    33,
  );
});

Deno.test("collectCatalogUsage() prices a file read again from the prices it kept (by the table's version, provider, model and day), not from the table", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "claude");
  const project = join(home, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, `${CLAUDE_SESSION_ID}.jsonl`);
  const first = new ClaudeTranscriptBuilder();
  first.user("hi");
  first.assistant([{ text: "a" }], { usage: { input: 10, output: 2 } });
  await Deno.writeTextFile(path, first.text());
  const sources = await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const cold = await collectCatalogUsage(catalog, sources);
  const fresh = await collectUsage({ sources, fold: true });
  assertEquals(cold.rows.map((row) => row.cost), fresh.rows.map((row) => row.cost));
  const kept = catalog.db.prepare("SELECT price_table, key FROM usage_prices").all();
  assertEquals(kept.map((row) => ({ ...row })), [{
    price_table: PRICE_TABLE,
    key: "anthropic claude-opus-4-5-20251101 2026-01-23",
  }]);
  // The kept price made a dollar an input token: a file read again is priced from it.
  catalog.db.prepare("UPDATE usage_prices SET rates = ?").run(
    JSON.stringify({ input: 1, output: 0, cacheRead: 0, cacheWrite: 0 }),
  );
  const more = new ClaudeTranscriptBuilder({}, Date.UTC(2026, 0, 23, 18, 0, 0));
  more.assistant([{ text: "b" }], { usage: { input: 5, output: 6 }, messageId: "msg_more" });
  await Deno.writeTextFile(path, more.text(), { append: true });
  const after = await collectCatalogUsage(catalog, sources);
  assertEquals(usageReport(after.rows, "daily").totals.totalCost, 15);
});

Deno.test("loadPriceBook() prices as the table's own calculation does: a flat model from its per-token prices, a tiered one above its tier", async () => {
  const { calcPrice } = await import("@pydantic/genai-prices");
  const book = await loadPriceBook();
  const time = "2026-01-05T00:00:00Z";
  for (
    const [model, provider, input] of [
      ["claude-sonnet-4-20250514", "anthropic", 1234],
      ["gpt-5.3-codex", "openai", 1234],
      ["gemini-2.5-pro", "google", 1234],
      // Above the 200k-token tier: the table's larger prices.
      ["gemini-2.5-pro", "google", 300_000],
    ] as const
  ) {
    const tokens = { input, output: 567, cacheRead: 8910, cacheCreation: 0, reasoningOutput: 0 };
    const theirs = calcPrice(
      {
        input_tokens: input + 8910,
        cache_read_tokens: 8910,
        cache_write_tokens: 0,
        output_tokens: 567,
      },
      model,
      { providerId: provider, timestamp: new Date(time) },
    )!.total_price;
    const mine = book.price(tokens, model, provider, time)!;
    assertEquals(Math.round(mine * 1e12), Math.round(theirs * 1e12), model);
  }
});

Deno.test("loadPriceBook() prices a run of responses as a fresh book prices each: models, providers and days changing, tiered, unpriced and oddly written times", async () => {
  const book = await loadPriceBook();
  const asked = [
    ["claude-sonnet-4-20250514", "anthropic", "2026-01-05T00:00:00Z"],
    ["claude-sonnet-4-20250514", "anthropic", "2026-01-05T09:00:00Z"],
    ["claude-sonnet-4-20250514", "anthropic", "2026-01-06T00:00:00Z"],
    ["claude-opus-4-5-20251101", "anthropic", "2026-01-06T00:00:00Z"],
    ["claude-sonnet-4-20250514", null, "2026-01-06T00:00:00Z"],
    ["gpt-5.3-codex", "openai", "2026-01-06T00:00:00Z"],
    ["gpt-5.5", "openai", "2026-01-06T00:00:00Z"],
    ["gemini-2.5-pro", "google", "2026-01-06T00:00:00Z"],
    ["gemini-2.5-pro", "google", "2026-01-06T01:00:00Z"],
    ["scripted", "embedded", "2026-01-06T01:00:00Z"],
    ["scripted", "embedded", "2026-01-06T02:00:00Z"],
    ["gpt-5.3-codex", "openai", "2026"],
    ["gpt-5.3-codex", "openai", "2026-01-06T03:00:00Z"],
    ["gpt-5.3-codex", "openai", "2026"],
  ] as const;
  for (const input of [1234, 300_000]) {
    const tokens = { input, output: 567, cacheRead: 8910, cacheCreation: 0, reasoningOutput: 0 };
    for (const [model, provider, time] of [...asked, ...asked.toReversed()]) {
      const fresh = (await loadPriceBook()).price(tokens, model, provider, time);
      assertEquals(book.price(tokens, model, provider, time), fresh, `${model} ${time}`);
    }
  }
});

Deno.test("inspectSession() gives the session's cost and each turn's: Claude Code's cost-state shared over the turns' responses, said as its source", async () => {
  await using dir = await tempDir();
  const home = await claudeHome(dir.path, { costState: true });
  const path = join(home, "projects", "-work-project", `${CLAUDE_SESSION_ID}.jsonl`);
  const report = await inspectSession(path);
  assertEquals(report.session.cost?.source, "Claude Code's cost-state");
  assertEquals(report.session.cost?.unpricedModels, []);
  assertEquals(Math.round(report.session.cost!.usd! * 1e9), 0.5e9);
  const turns = report.turns.map((turn) => turn.cost);
  assertEquals(turns.length, 1);
  assertEquals(Math.round(turns[0]! * 1e9), 0.5e9);
  const text = renderReport(report, { color: false });
  assertEquals(
    text.split("\n").find((line) => line.trimStart().startsWith("cost ")),
    "  cost     $0.50 (Claude Code's cost-state)",
  );
});

Deno.test("collectUsage() counts a response another session's file repeats once: in the first session (by path), with the copy holding the most tokens", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "claude");
  const project = join(home, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const first = new ClaudeTranscriptBuilder({ sessionId: "aaaaaaaa-0000-4000-8000-000000000001" });
  first.user("hi");
  first.assistant([{ text: "a" }], { usage: { input: 1, output: 2 }, messageId: "msg_same" });
  const second = new ClaudeTranscriptBuilder({ sessionId: "bbbbbbbb-0000-4000-8000-000000000002" });
  second.user("hi");
  // The resume replays the response with its final output count.
  second.assistant([{ text: "a" }], { usage: { input: 1, output: 9 }, messageId: "msg_same" });
  second.assistant([{ text: "b" }], { usage: { input: 3, output: 4 }, messageId: "msg_new" });
  await Deno.writeTextFile(
    join(project, "aaaaaaaa-0000-4000-8000-000000000001.jsonl"),
    first.text(),
  );
  await Deno.writeTextFile(
    join(project, "bbbbbbbb-0000-4000-8000-000000000002.jsonl"),
    second.text(),
  );
  const got = await collectUsage({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) });
  assertEquals(got.rows.map((row) => [row.sessionId.slice(0, 8), row.input, row.output]), [
    ["aaaaaaaa", 1, 9],
    ["bbbbbbbb", 3, 4],
  ]);
});

Deno.test("reckonCost() gives each response to the turn the walk from the first turn stops at, turns out of order too, in O(log n) a response", async () => {
  const event = (time: string) => ({
    time,
    model: "claude-opus-4-5-20251101",
    input: 1000,
    output: 0,
    cacheRead: 0,
    cacheCreation: 0,
    reasoningOutput: 0,
  });
  // The second turn's clock went back: a response after it but before the first turn's time
  // still stops the walk at the first turn.
  const turnTimes = ["2026-01-01T00:00:00Z", "2026-01-01T00:10:00Z", "2026-01-01T00:05:00Z"];
  const small = await reckonCost(
    ["2026-01-01T00:01:00Z", "2026-01-01T00:06:00Z", "2026-01-01T00:11:00Z"].map(event),
    { provider: "anthropic", turnTimes },
  );
  const each = small.turns[2]!;
  assertEquals([each > 0, small.turns], [true, [2 * each, undefined, each]]);
  // 200,000 responses over 20,000 turns: a walk per response took seconds here.
  const times = Array.from({ length: 20_000 }, (_, i) => new Date(i * 60_000).toISOString());
  const events = Array.from(
    { length: 200_000 },
    (_, i) => event(new Date(i * 6_000).toISOString()),
  );
  const started = performance.now();
  const big = await reckonCost(events, { provider: "anthropic", turnTimes: times });
  // Ten responses a turn, each turn's sum rounded the same way.
  const ten = Array.from({ length: 10 }).reduce<number>((sum) => sum + each, 0);
  assertEquals([big.turns.length, big.turns[0], big.turns[19_999]], [20_000, ten, ten]);
  assertEquals(performance.now() - started < 5_000, true);
});

Deno.test("turnFinder() answers as the walk from the first turn does, for times asked in order and out of it", () => {
  const time = (minute: number) => `2026-01-01T00:${String(minute).padStart(2, "0")}:00Z`;
  // The walk: from the first turn on, up to the first turn past it that starts later.
  const walk = (times: readonly string[], at: string) => {
    let next = 1;
    while (next < times.length && times[next]! <= at) next++;
    return next - 1;
  };
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 12 }),
      fc.array(fc.integer({ min: 0, max: 21 }), { maxLength: 30 }),
      (starts, asked) => {
        const times = starts.map(time);
        // The same finder asked out of order, then in order: its last answer is a guess to check.
        const find = turnFinder(times);
        const inOrder = [...asked].sort((a, b) => a - b);
        for (const at of [...asked, ...inOrder].map(time)) {
          assertEquals(find(at), walk(times, at), `${at} in ${times.join(",")}`);
        }
      },
    ),
    { numRuns: 500 },
  );
});

/** The corpus's Claude Code home (linked into `base`) and its Codex rollouts, as places. */
async function corpusSources(base: string) {
  const home = join(base, "claude");
  await Deno.mkdir(home);
  await Deno.symlink(join(CORPUS, "claude", "projects"), join(home, "projects"));
  return [
    ...await searchSources({ homes: ["claude"], env: env({ CLAUDE_CONFIG_DIR: home }) }),
    { format: "codex" as const, root: join(CORPUS, "codex"), flags: ["--sessions-dir"] },
  ];
}

Deno.test({
  ...needing(
    "UsagePool reads each file as its format's usage reads it, in the worker and in this thread, and a file the worker cannot read fails as it fails here",
    CORPUS_MISSING,
  ),
  async fn() {
    await using dir = await tempDir();
    const sessions = await usageSessions(await corpusSources(dir.path));
    const missing = join(dir.path, "gone.jsonl");
    await Deno.writeTextFile(missing, "");
    const planned: PlannedFile[] = [
      { path: missing, format: "codex", info: await Deno.stat(missing) },
      ...sessions.flatMap((session) =>
        [session.path, ...session.subagents].map((path) => ({
          path,
          format: session.format,
          info: Deno.statSync(path),
        }))
      ),
    ];
    await Deno.remove(missing);
    using pool = new UsagePool(planned);
    const here = (file: PlannedFile) => USAGE_READERS.get(file.format)!(file.path);
    const failed = (await here(planned[0]!).catch((error) => error)) as Error;
    assertEquals(
      ((await pool.read(missing).catch((error) => error)) as Error).message,
      failed.message,
    );
    for (const file of planned.slice(1)) {
      assertEquals(await pool.read(file.path), await here(file), file.path);
    }
    assertEquals(await pool.read(join(dir.path, "not-planned.jsonl")), null);
    // The worker is sent the first two files at once; this thread reads ahead while it waits.
    assertEquals(
      pool.counts.worker >= 2 && pool.counts.here >= 1,
      true,
      JSON.stringify(pool.counts),
    );
    assertEquals(pool.counts.worker + pool.counts.here, planned.length);
  },
});

Deno.test({
  ...needing(
    "collectCatalogUsage() reading with a worker (parallelBytes: 0) counts and keeps what one thread counts and keeps, and what a fresh read counts",
    CORPUS_MISSING,
  ),
  async fn() {
    await using dir = await tempDir();
    const sources = await corpusSources(dir.path);
    const plain = (got: unknown) => JSON.parse(JSON.stringify(got));
    using two = Catalog.open({ path: join(dir.path, "two.sqlite") });
    using one = Catalog.open({ path: join(dir.path, "one.sqlite") });
    const withWorker = await collectCatalogUsage(two, sources, { parallelBytes: 0 });
    const alone = await collectCatalogUsage(one, sources, { parallelBytes: Infinity });
    assertEquals(plain(withWorker), plain(alone));
    assertEquals(plain(withWorker), plain(await collectUsage({ sources, fold: true })));
    assertEquals(withWorker.rows.length > 0, true);
    const kept = (catalog: Catalog) =>
      catalog.db.prepare(
        "SELECT path, ino, size, mtime, provider, session_id, cwd, tool_cost, bad_lines, events " +
          "FROM usage_files ORDER BY path",
      ).all();
    assertEquals(kept(two), kept(one));
    assertEquals(kept(two).length > 10, true);
  },
});
