/**
 * A tiny run of the benchmark, so it does not rot: the harness runs end to end on small
 * generated sessions, its results have the documented shape, and what it compares is the
 * same work (turnlog's replay equals the naive replay's history on the generated files).
 * No timing is asserted.
 */
import { collectRecords } from "../src/history/mod.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { renderTable, runBenchmarks } from "../bench/run.ts";
import { ensureSession, ensureStore } from "../testing/generate/mod.ts";
import { findPostgresBinaries } from "../testing/postgres.ts";
import {
  limitKeepHistory,
  limitParse,
  naiveList,
  naiveReplay,
  naiveResume,
} from "../bench/baselines.ts";
import { loadSession, resumeSession } from "../src/resume/mod.ts";
import { findSession, listSessions } from "../src/store/mod.ts";

Deno.test("turnlog's replay equals the naive replay on generated sessions", async () => {
  await using dir = await tempDir();
  for (const checkpoints of [false, true]) {
    for (const size of [32 * 1024, 300 * 1024]) {
      const session = await ensureSession(dir.path, { size, seed: 3, checkpoints });
      const { records, problems } = await collectRecords(session.path, { strict: true });
      assertEquals(problems, []);
      assertStrictEquals(records.length, session.records);
      if (checkpoints) {
        assert(session.checkpointCount >= 1, "a checkpoint was written");
        assert(session.lastCheckpointOffset > 0, "the last checkpoint's offset is known");
      }
      const location = { id: session.id, path: session.path, createdAt: session.createdAt };
      const loaded = await loadSession(location);
      const naive = await naiveReplay(session.path);
      assertEquals(loaded.replayed, naive);
      assertEquals(await limitKeepHistory(session.path), naive);
      assertStrictEquals(await limitParse(session.path), session.records);
      const resumed = await resumeSession(session.id, { root: session.root });
      assertEquals(resumed.history, (await naiveResume(session.path)).history);
    }
  }
});

Deno.test("the generator is deterministic and the store is found and listed like the naive way", async () => {
  await using dir = await tempDir();
  const a = await ensureSession(`${dir.path}/a`, { size: 64 * 1024, seed: 9, checkpoints: true });
  const b = await ensureSession(`${dir.path}/b`, { size: 64 * 1024, seed: 9, checkpoints: true });
  assertStrictEquals(a.id, b.id);
  assertEquals(await Deno.readFile(a.path), await Deno.readFile(b.path));
  // A second call reuses the file instead of writing it again.
  const before = (await Deno.stat(a.path)).mtime?.getTime();
  assertStrictEquals((await ensureSession(`${dir.path}/a`, a.spec)).path, a.path);
  assertStrictEquals((await Deno.stat(a.path)).mtime?.getTime(), before);

  const store = await ensureStore(dir.path, { count: 120, seed: 5, days: 30 });
  for (const id of store.lookupIds) {
    assertStrictEquals((await findSession(store.root, id)).id, id);
  }
  const listed = await listSessions(store.root, { limit: 25 });
  assertEquals(listed.sessions.map((s) => s.id), store.newestIds);
  assertEquals((await naiveList(store.root, 25)).map((s) => s.id), store.newestIds);
});

Deno.test("a tiny benchmark run produces every figure and a table", async () => {
  await using dir = await tempDir();
  const resultsPath = `${dir.path}/results.json`;
  const results = await runBenchmarks({
    sizes: [48 * 1024],
    rounds: 1,
    storeCount: 60,
    seed: 1,
    outDir: `${dir.path}/out`,
    resultsPath,
    print: false,
    peers: false,
  });
  assertEquals(JSON.parse(await Deno.readTextFile(resultsPath)), results);
  // The PostgreSQL store beside the files, when the server binaries are installed.
  const postgres = await findPostgresBinaries() === undefined ? [] : [
    "postgres full resume 48KB",
    "postgres checkpoint resume 48KB",
    "postgres append (48KB vs empty)",
  ];
  assertEquals(results.benchmarks.map((b) => b.name), [
    "full resume 48KB",
    "checkpoint resume 48KB",
    "find by id (60 sessions)",
    "list newest 25 (60 sessions)",
    "inspect --json 48KB",
    "inspect text view 48KB",
    "inspect Claude Code 48KB",
    "import Claude Code 48KB",
    "export --to codex vs inspect --json, Claude Code 48KB",
    "inspect Codex 48KB",
    "import Codex 48KB",
    "export --to codex vs inspect --json, Codex 48KB",
    "inspect Gemini CLI 48KB",
    "import Gemini CLI 48KB",
    "export --to codex vs inspect --json, Gemini CLI 48KB",
    "append (48KB vs empty)",
    ...postgres,
    "search vs ripgrep, home of 48KB",
    "archive, home of 48KB",
    "start-up at rest",
  ]);
  assertEquals(results.benchmarks[0]!.variants.map((v) => v.name), [
    "turnlog resumeSession",
    "naive",
    "limit",
    "limit + history kept",
    "forward replay only",
  ]);
  for (const bench of results.benchmarks) {
    assert(bench.target !== null, bench.name);
    // Targets are stated for real sizes: a smoke run measures, it gives no verdict.
    assertStrictEquals(bench.target.pass, null, bench.name);
    assert(Number.isFinite(bench.target.ratio), bench.name);
    for (const variant of bench.variants) {
      assert(variant.samples > 0, `${bench.name} ${variant.name}`);
      assert(variant.minMs <= variant.medianMs && variant.medianMs <= variant.maxMs, variant.name);
      assert(variant.peakRssBytes > 0, `${variant.name} has a peak RSS`);
    }
  }
  // The full-resume variants did the same work: the same history length, the same lines.
  const [turnlog, naive, limit, kept, forward] = results.benchmarks[0]!.variants;
  assertStrictEquals(turnlog!.check, naive!.check);
  assertStrictEquals(forward!.check, naive!.check);
  assert(typeof limit!.check === "number" && limit!.check > 0);
  assert(typeof kept!.check === "number" && kept!.check > 0);
  // Listing opens only the listed files (fewer than 25 here would be wrong: 60 exist).
  const list = results.benchmarks[3]!;
  assertStrictEquals(list.variants[0]!.io?.filesOpened, 25);
  assert(list.notes.includes("the newest 25, newest first"), list.notes.join("; "));
  assert((list.variants[1]!.io?.filesOpened ?? 0) >= 60, "the naive listing opens every file");
  // The file store and the database resumed the same history.
  for (const bench of results.benchmarks.filter((b) => b.name.startsWith("postgres "))) {
    if (bench.name.includes("append")) continue;
    const checks = bench.variants.map((v) => v.check);
    assertEquals(checks, checks.map(() => checks[0]), bench.name);
  }
  assert(results.machine.cores > 0 && results.machine.deno.length > 0);
  assert(results.machine.cpu.length > 0);
  const table = renderTable(results);
  assert(table.split("\n").length === 2 + results.benchmarks.flatMap((b) => b.variants).length);
  assert(!/\| (PASS|MISS) \|/.test(table), table);
  // The other tools' files were read as the naive way reads them: the same lines.
  for (const name of ["inspect Codex 48KB", "import Claude Code 48KB"]) {
    const bench = results.benchmarks.find((b) => b.name === name)!;
    assert(bench.variants.every((v) => v.error === undefined), name);
  }
});
