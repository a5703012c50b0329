/**
 * `doctor` over a home with a Claude Code session its cleanup deletes within a week, a Codex
 * rollout Codex would not resume, and one with a record type turnlog has never seen: it lists
 * all three (with the command that deals with each), the versions and the disk used, and exits
 * 1; a home with nothing to say exits 0.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { examineHomes } from "../src/doctor/mod.ts";
import { Catalog } from "../src/catalog/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { PaginatedRolloutBuilder } from "../testing/formats/codex_paginated.ts";
import { fatTime, ownTimesOnly, rewriteUnseen } from "./_racy.ts";

const CLI = new URL("../cli/doctor.ts", import.meta.url).pathname;
const CONFIG = new URL("../deno.json", import.meta.url).pathname;
const BROKEN = "01a24800-0000-7000-8000-000000000001";
const DRIFTING = "01a24801-0000-7000-8000-000000000002";
const STALE = "7acd37a8-0000-4000-8000-0000000000aa";
const NOW = Date.UTC(2026, 11, 5, 12);
const DAY = 24 * 60 * 60 * 1000;

/** The home: the three sessions, written; their paths. */
async function home(dir: string) {
  const day = join(dir, ".codex", "sessions", "2026", "12", "01");
  await Deno.mkdir(day, { recursive: true });
  const broken = join(day, `rollout-2026-12-01T20-07-41-${BROKEN}.jsonl`);
  await Deno.writeTextFile(
    broken,
    new PaginatedRolloutBuilder({ id: BROKEN }).meta().turn("t1", "run `sleep 30`")
      .call("c1", "sleep 30").usage(9507, 28).text(),
  );
  const drifting = join(day, `rollout-2026-12-01T21-00-00-${DRIFTING}.jsonl`);
  const clean = new PaginatedRolloutBuilder({ id: DRIFTING }).meta().turn("t1", "say hi")
    .answer("Hi.").usage(100, 5).complete("Hi.");
  const future = JSON.stringify({
    timestamp: "2026-12-01T21:00:09.000Z",
    ordinal: clean.lines.length,
    type: "rollout_reference",
    payload: { thread_id: BROKEN },
  });
  await Deno.writeTextFile(drifting, clean.text() + future + "\n");
  const project = join(dir, ".claude", "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const stale = join(project, `${STALE}.jsonl`);
  const b = new ClaudeTranscriptBuilder({ sessionId: STALE, version: "2.1.332" });
  b.assistant([{ text: "Hello." }], { parent: b.user("hello"), stop: "end_turn" });
  await Deno.writeTextFile(stale, b.text());
  const written = new Date(NOW - 25 * DAY);
  await Deno.utime(stale, written, written);
  return { broken, drifting, stale };
}

Deno.test("examineHomes() finds a session its cleanup deletes soon, one Codex would not resume, and a record type never seen", async () => {
  await using dir = await tempDir();
  const { broken, drifting, stale } = await home(dir.path);
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const report = await examineHomes({ env, now: new Date(NOW) });
  assertEquals(report.needsUser, true);
  const [codex, claude, gemini] = report.homes;
  assertEquals([codex!.format, codex!.sessions, codex!.versions], [
    "codex",
    2,
    [{ version: "0.169.0", sessions: 2 }],
  ]);
  assertEquals(codex!.unresumable.map((s) => [s.path, s.first.startsWith(`${broken}:`)]), [
    [broken, true],
  ]);
  assertEquals(codex!.drift, [{
    version: "0.169.0",
    kind: "unknown:rollout_reference",
    lines: 1,
    sessions: 1,
    example: drifting,
  }]);
  const sizes = (await Deno.stat(broken)).size + (await Deno.stat(drifting)).size;
  assertEquals(codex!.bytes, sizes);
  // The builders write only fields turnlog knows.
  assertEquals([codex!.fields, codex!.moreFields], [[], 0]);
  assertEquals(claude!.expiring, [{
    id: STALE,
    path: stale,
    modified: new Date(NOW - 25 * DAY).toISOString(),
    deletedFrom: new Date(NOW + 5 * DAY).toISOString(),
  }]);
  assertEquals(claude!.retention, {
    days: 30,
    source: "Claude Code's default (no cleanupPeriodDays)",
  });
  assertEquals([claude!.unresumable, claude!.drift], [[], []]);
  assertEquals(gemini!.exists, false);
});

/** A clean rollout of `version` with `change` made to its parsed lines. */
function rolloutOf(id: string, version: string, change: (lines: Json[]) => void): string {
  const built = new PaginatedRolloutBuilder({ id }).meta().turn("t1", "say hi").answer("Hi.")
    .usage(100, 5).tokenCount(100, 5).complete("Hi.");
  const lines = built.lines.map((line) => JSON.parse(line) as Json);
  (lines[0]!.payload as Json).cli_version = version;
  change(lines);
  return lines.map((line) => JSON.stringify(line)).join("\n") + "\n";
}

type Json = Record<string, unknown>;

/** A Codex home of five rollouts, four of them with fields turnlog has never seen. */
async function fieldHome(dir: string) {
  const day = join(dir, ".codex", "sessions", "2026", "12", "02");
  await Deno.mkdir(day, { recursive: true });
  const ids = [1, 2, 3, 4, 5].map((n) => `01a24810-0000-7000-8000-00000000000${n}`);
  const paths = ids.map((id) => join(day, `rollout-2026-12-02T10-00-00-${id}.jsonl`));
  const assistant = (lines: Json[]) =>
    lines.findIndex((l) => (l.payload as Json).role === "assistant");
  // Three 0.171.0 rollouts whose session_meta has memory_budget, one also a new key on each
  // record and on its answer; one 0.169.0 rollout with memory_budget; one clean.
  for (const [n, path] of paths.entries()) {
    const version = n === 3 ? "0.169.0" : "0.171.0";
    await Deno.writeTextFile(
      path,
      rolloutOf(ids[n]!, version, (lines) => {
        if (n === 4) return;
        (lines[0]!.payload as Json).memory_budget = { tokens: 900 };
        if (n !== 0) return;
        for (const line of lines) line.segment = 1;
        (lines[assistant(lines)]!.payload as Json).sent_at_ms = 1;
      }),
    );
  }
  return paths;
}

Deno.test("examineHomes() reports fields of known records turnlog has never seen, per Codex version, from the read", async () => {
  await using dir = await tempDir();
  const paths = await fieldHome(dir.path);
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const report = await examineHomes({ env, now: new Date(NOW) });
  const codex = report.homes[0]!;
  const lines = (await Deno.readTextFile(paths[0]!)).split("\n");
  const answerLine = lines.findIndex((line) => line.includes('"sent_at_ms"')) + 1;
  assertEquals(codex.fields, [
    {
      version: "0.169.0",
      field: "session_meta.payload.memory_budget",
      lines: 1,
      sessions: 1,
      examples: [`${paths[3]}:1`],
    },
    {
      version: "0.171.0",
      field: "record.segment",
      lines: lines.length - 1,
      sessions: 1,
      examples: [`${paths[0]}:1`],
    },
    {
      version: "0.171.0",
      field: "response_item.message.sent_at_ms",
      lines: 1,
      sessions: 1,
      examples: [`${paths[0]}:${answerLine}`],
    },
    {
      version: "0.171.0",
      field: "session_meta.payload.memory_budget",
      lines: 3,
      sessions: 3,
      examples: [0, 1, 2].map((n) => `${paths[n]}:1`),
    },
  ]);
  assertEquals(answerLine > 1, true);
  assertEquals([codex.moreFields, codex.drift, report.needsUser], [0, [], true]);
});

Deno.test("examineHomes() reads cleanupPeriodDays from Claude Code's settings.json", async () => {
  await using dir = await tempDir();
  await home(dir.path);
  const settings = join(dir.path, ".claude", "settings.json");
  await Deno.writeTextFile(settings, JSON.stringify({ cleanupPeriodDays: 90 }));
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const claude = (await examineHomes({ env, now: new Date(NOW) })).homes[1]!;
  assertEquals(claude.retention, { days: 90, source: `cleanupPeriodDays in ${settings}` });
  assertEquals(claude.expiring, []);
});

async function doctor(home: string, ...args: string[]) {
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", `--config=${CONFIG}`, "-P=doctor", CLI, ...args],
    clearEnv: true,
    env: {
      HOME: home,
      TURNLOG_CATALOG: join(home, "catalog.sqlite"),
      NO_COLOR: "1",
      PATH: Deno.env.get("PATH") ?? "",
      // The module cache stays where it is (it is under the real home).
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
      DENO_NO_UPDATE_CHECK: "1",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: ran.code, out: decode(ran.stdout), err: decode(ran.stderr) };
}

Deno.test("doctor lists the three on one screen with their commands, and exits 1; --json says the same", async () => {
  await using dir = await tempDir();
  const { broken, drifting, stale } = await home(dir.path);
  // The cleanup is measured from now: the transcript is made 25 days old from now.
  const written = new Date(Date.now() - 25 * DAY);
  await Deno.utime(stale, written, written);
  const { code, out, err } = await doctor(dir.path);
  assertEquals([code, err], [1, ""]);
  const lines = out.split("\n");
  const at = (text: string) => lines.findIndex((line) => line.includes(text));
  assertEquals(
    lines[at("Codex CLI would not resume 1 session:") + 2],
    `      ./denow task repair --write ${broken}`,
  );
  assertEquals(
    lines[at("record types turnlog has never seen:") + 1],
    `    unknown:rollout_reference from version 0.169.0: 1 line in 1 session, e.g. ${drifting}`,
  );
  const cleanup = at("its cleanup deletes 1 session within 7 days");
  assertEquals(lines[cleanup + 1]?.startsWith(`    ${stale}: last written `), true);
  assertEquals(lines[cleanup + 2], "    keep them: ./denow task archive");
  assertEquals(lines.at(-2)?.endsWith("something above needs you"), true);
  assertEquals(at("fields turnlog has never seen"), -1);
  const json = await doctor(dir.path, "--json");
  assertEquals(json.code, 1);
  const report = JSON.parse(json.out);
  assertEquals(report.needsUser, true);
  assertEquals(report.homes.map((h: { format: string }) => h.format), [
    "codex",
    "claude-code",
    "gemini",
  ]);
});

Deno.test("doctor lists the fields turnlog has never seen, per version, with examples; --json too", async () => {
  await using dir = await tempDir();
  const paths = await fieldHome(dir.path);
  const { code, out, err } = await doctor(dir.path);
  assertEquals([code, err], [1, ""]);
  const lines = out.split("\n");
  const at = lines.findIndex((line) => line === "  fields turnlog has never seen:");
  assertEquals(
    lines[at + 1],
    "    session_meta.payload.memory_budget from version 0.169.0: 1 line in 1 session, " +
      `e.g. ${paths[3]}:1`,
  );
  assertEquals(
    lines[at + 4],
    "    session_meta.payload.memory_budget from version 0.171.0: 3 lines in 3 sessions, " +
      `e.g. ${paths[0]}:1, ${paths[1]}:1, ${paths[2]}:1`,
  );
  assertEquals(lines[at + 5]?.startsWith("    "), false);
  const json = JSON.parse((await doctor(dir.path, "--json")).out);
  assertEquals(
    json.homes[0].fields.map((f: { field: string; version: string }) => `${f.version} ${f.field}`),
    [
      "0.169.0 session_meta.payload.memory_budget",
      "0.171.0 record.segment",
      "0.171.0 response_item.message.sent_at_ms",
      "0.171.0 session_meta.payload.memory_budget",
    ],
  );
});

Deno.test("doctor on a home with nothing to say exits 0", async () => {
  await using dir = await tempDir();
  const { code, out } = await doctor(dir.path);
  assertEquals(code, 0);
  assertEquals(out.trimEnd().split("\n").at(-1), "0 homes, 0 sessions, 0 bytes: nothing needs you");
});

/** A subagent's transcript beside the stale Claude Code session (its bytes count with it). */
async function withSubagent(stale: string): Promise<string> {
  const folder = join(stale.slice(0, -".jsonl".length), "subagents");
  await Deno.mkdir(folder, { recursive: true });
  const path = join(folder, "agent-a1.jsonl");
  const b = new ClaudeTranscriptBuilder({ sessionId: STALE, version: "2.1.332" });
  b.assistant([{ text: "Done." }], { parent: b.user("look around"), stop: "end_turn" });
  await Deno.writeTextFile(path, b.text());
  return path;
}

Deno.test("examineHomes() with the catalog says what it says from the files, on a home with a damaged session, and warm reads no session file", async () => {
  await using dir = await tempDir();
  const { broken, drifting, stale } = await home(dir.path);
  const subagent = await withSubagent(stale);
  const fields = await fieldHome(dir.path);
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const now = new Date(NOW);
  const files = await examineHomes({ env, now });
  assertEquals(files.homes[0]!.unresumable.map((s) => s.path), [broken]);
  assertEquals(files.homes[0]!.drift.map((d) => d.example), [drifting]);
  assertEquals(files.homes[0]!.sessions, 2 + fields.length);
  const claudeBytes = (await Deno.stat(stale)).size + (await Deno.stat(subagent)).size;
  assertEquals([files.homes[1]!.sessions, files.homes[1]!.bytes], [1, claudeBytes]);

  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const cold = await examineHomes({ env, now, catalog });
  assertEquals(cold, files);
  using io = countIo();
  const warm = await examineHomes({ env, now, catalog });
  const sessionFiles = [broken, drifting, stale, subagent, ...fields];
  const read = io.take().reads.filter((r) => sessionFiles.includes(r.path));
  assertEquals([warm, read], [files, []]);

  // A session repaired (rewritten) is read again, and the doctor says so from the catalog too.
  const text = await Deno.readTextFile(drifting);
  await Deno.writeTextFile(drifting, text.split("\n").slice(0, -2).join("\n") + "\n");
  const after = await examineHomes({ env, now, catalog });
  assert(io.take().reads.some((r) => r.path === drifting));
  assertEquals(after.homes[0]!.drift, []);
  assertEquals(after, await examineHomes({ env, now }));
});

Deno.test("doctor --no-catalog says what doctor says from the catalog, cold and warm", async () => {
  await using dir = await tempDir();
  await home(dir.path);
  const json = async (...args: string[]) => {
    const ran = await doctor(dir.path, "--json", ...args);
    assertEquals([ran.code, ran.err], [1, ""]);
    const { at: _, ...report } = JSON.parse(ran.out);
    return report;
  };
  const files = await json("--no-catalog");
  assertEquals(await Deno.stat(join(dir.path, "catalog.sqlite")).catch(() => null), null);
  assertEquals(await json(), files);
  assertEquals(await json(), files);
  assertEquals(files.homes[0].unresumable.length, 1);
});

Deno.test("examineHomes() with the catalog reads again a file it read in the tick of its last write on a file system of seconds, rewritten since in place at the same size and time", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const { drifting } = await home(dir.path);
  const second = await fatTime(drifting);
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const now = new Date(NOW);
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const before = await examineHomes({ env, now, catalog });
  assertEquals(before.homes[0]!.drift.map((d) => d.kind), ["unknown:rollout_reference"]);
  await rewriteUnseen(drifting, '"rollout_reference"', '"rollout_rEference"', second);
  const after = await examineHomes({ env, now, catalog });
  assertEquals(after.homes[0]!.drift.map((d) => d.kind), ["unknown:rollout_rEference"]);
  assertEquals(after, await examineHomes({ env, now }));
});

Deno.test("examineHomes() with the catalog reads each session file no more than the catalog's update alone does: one read for both", async () => {
  await using dir = await tempDir();
  const { broken, drifting, stale } = await home(dir.path);
  const subagent = await withSubagent(stale);
  const fields = await fieldHome(dir.path);
  const sessionFiles = [broken, drifting, stale, subagent, ...fields];
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const bytesOf = (reads: { path: string; start: number; end: number }[]) =>
    Object.fromEntries(sessionFiles.map((path) => [
      path,
      reads.filter((read) => read.path === path)
        .reduce((sum, read) => sum + read.end - read.start, 0),
    ]));
  const sources = [
    { format: "codex", root: join(dir.path, ".codex", "sessions") },
    { format: "claude-code", root: join(dir.path, ".claude", "projects") },
  ];
  using alone = Catalog.open({ path: join(dir.path, "alone.sqlite") });
  using io = countIo();
  await alone.update(sources, { text: false });
  const update = bytesOf(io.take().reads);
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  io.take();
  const report = await examineHomes({ env, now: new Date(NOW), catalog });
  const doctor = bytesOf(io.take().reads);
  assert(Object.values(update).every((bytes) => bytes > 0));
  assertEquals(doctor, update);
  assertEquals(report, await examineHomes({ env, now: new Date(NOW) }));
});

Deno.test("doctor lists a Claude Code session whose only damage is a line that is not JSON as passed over, which needs nothing (Claude Code resumes it), and exits 0", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, ".claude", "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  const path = join(project, `${STALE}.jsonl`);
  const b = new ClaudeTranscriptBuilder({ sessionId: STALE, version: "2.1.332" });
  b.assistant([{ text: "Hello." }], { parent: b.user("hello"), stop: "end_turn" });
  const [first, ...rest] = b.text().split("\n");
  await Deno.writeTextFile(path, [first, "not json", ...rest].join("\n"));
  const env = { get: (name: string) => name === "HOME" ? dir.path : undefined };
  const report = await examineHomes({ env });
  const claude = report.homes.find((home) => home.format === "claude-code")!;
  assertEquals(claude.unresumable, []);
  assertEquals(claude.passedOver.map((s) => [s.path, s.findings]), [[path, 1]]);
  assertEquals(report.needsUser, false);
  const { code, out } = await doctor(dir.path);
  assertEquals(code, 0, out);
  assert(
    out.includes(
      "  Claude Code passes over lines that are not valid in 1 session (it resumes them as they " +
        `are; a repair sets the lines aside):\n    ${path}:2: not valid JSON`,
    ),
    out,
  );
});
