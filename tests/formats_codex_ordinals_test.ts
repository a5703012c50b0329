/**
 * The ordinals of a paginated Codex rollout: a last record without one (which the real Codex
 * 0.171 refuses), a record without one between numbered ones, a repeated ordinal and one that
 * goes back are findings; repair numbers the records in order again, each changed line's
 * original in the sidecar, and a second repair changes nothing. The real Codex judges the
 * repaired files in tests/real_clients/codex_suite.ts.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { sidecarPayloadLines } from "./_inspect_fixtures.ts";
import { validateSessionFile } from "../src/formats/mod.ts";
import { repairSession } from "../src/repair/mod.ts";
import { quarantinePath } from "../src/store/mod.ts";
import { PAGINATED_ID, paginatedClean } from "../testing/formats/codex_paginated.ts";

const NAME = `rollout-2026-12-01T20-07-41-${PAGINATED_ID}.jsonl`;

type Line = Record<string, unknown>;

/** The clean rollout's records, changed by `damage`, written; the path. */
async function damaged(dir: string, damage: (records: Line[]) => Line[]): Promise<string> {
  const records = paginatedClean().lines.map((line) => JSON.parse(line) as Line);
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, NAME);
  await Deno.writeTextFile(path, damage(records).map((r) => JSON.stringify(r)).join("\n") + "\n");
  return path;
}

const without = (record: Line): Line => {
  const { ordinal: _, ...rest } = record;
  return rest;
};

/** The findings of Codex's check, `line: words`, without the path. */
async function findings(path: string): Promise<string[]> {
  const { findings } = await validateSessionFile(path, "codex");
  return findings.map((finding) =>
    `${finding.kind} ${finding.line}: ${finding.message.slice(`${path}:${finding.line}: `.length)}`
  );
}

/** The file's ordinals, in order (null: none). */
async function ordinals(path: string): Promise<(number | null)[]> {
  return (await Deno.readTextFile(path)).split("\n").filter(Boolean).map((line) =>
    JSON.parse(line).ordinal ?? null
  );
}

/** Repairs twice: the second changes nothing; gives the sidecar's kept lines. */
async function repairTwice(path: string): Promise<string[]> {
  const { after } = await repairSession(path);
  assertEquals(after.healthy, true);
  assertEquals(await findings(path), []);
  const file = await Deno.readFile(path);
  const sidecar = await Deno.readFile(quarantinePath(path));
  await repairSession(path);
  assertEquals(await Deno.readFile(path), file, "a second repair changes nothing");
  assertEquals(await Deno.readFile(quarantinePath(path)), sidecar);
  return sidecarPayloadLines(sidecar);
}

Deno.test("validateSessionFile(codex) finds the last record without an ordinal, which Codex refuses; repair numbers it next", async () => {
  await using dir = await tempDir();
  const path = await damaged(
    dir.path,
    (records) => [...records.slice(0, -1), without(records.at(-1)!)],
  );
  const original = (await Deno.readTextFile(path)).split("\n").filter(Boolean);
  assertEquals(await findings(path), [
    `bad_ordinal ${original.length}: a record without an ordinal at the end of a paginated rollout: Codex refuses this file ("final paginated rollout record is missing an ordinal")`,
  ]);
  const kept = await repairTwice(path);
  assertEquals(kept, [original.at(-1)!], "the original line is in the sidecar");
  const numbers = await ordinals(path);
  assertEquals(numbers, numbers.map((_, at) => at), "every record numbered in order");
  const last = JSON.parse((await Deno.readTextFile(path)).trimEnd().split("\n").at(-1)!);
  assertEquals(without(last), JSON.parse(original.at(-1)!), "only its ordinal is new");
});

Deno.test("validateSessionFile(codex) finds a missing, a repeated and a backward ordinal mid-file; repair renumbers only what it must", async () => {
  await using dir = await tempDir();
  const IN_ORDER = paginatedClean().lines.map((_, at) => at);
  const cases: [string, (records: Line[]) => Line[], string, (number | null)[]][] = [
    [
      "missing",
      (records) => records.map((r, at) => at === 7 ? without(r) : r),
      "bad_ordinal 8: a record without an ordinal after ordinal 6 (line 7): Codex's paginated history is keyed by ordinal",
      IN_ORDER,
    ],
    [
      "duplicate",
      (records) => records.map((r, at) => at === 7 ? { ...r, ordinal: 6 } : r),
      "bad_ordinal 8: ordinal 6 again (line 7 has it): Codex's paginated history is keyed by ordinal",
      IN_ORDER,
    ],
    [
      "out of order",
      (records) => records.map((r, at) => at === 7 ? { ...r, ordinal: 2 } : r),
      "bad_ordinal 8: ordinal 2 after ordinal 6 (line 7): out of order, and Codex's paginated history is keyed by ordinal",
      IN_ORDER,
    ],
    [
      "a gap after the repeat",
      (records) =>
        records.map((r, at) =>
          at === 7 ? { ...r, ordinal: 6 } : at > 7 ? { ...r, ordinal: at + 5 } : r
        ),
      "bad_ordinal 8: ordinal 6 again (line 7 has it): Codex's paginated history is keyed by ordinal",
      [...IN_ORDER.slice(0, 8), ...IN_ORDER.slice(8).map((n) => n + 5)],
    ],
  ];
  for (const [name, damage, finding, after] of cases) {
    const path = await damaged(join(dir.path, name), damage);
    const original = (await Deno.readTextFile(path)).split("\n").filter(Boolean);
    assertEquals(await findings(path), [finding], name);
    const kept = await repairTwice(path);
    assertEquals(await ordinals(path), after, name);
    // The lines whose ordinal changed are in the sidecar, as they were; the rest did not move.
    const now = (await Deno.readTextFile(path)).split("\n").filter(Boolean);
    assertEquals(now.length, original.length, name);
    const changed = original.filter((line, at) => line !== now[at]);
    assertEquals(kept, changed, name);
    for (const [at, line] of now.entries()) {
      assertEquals(without(JSON.parse(line)), without(JSON.parse(original[at]!)), name);
    }
  }
});

Deno.test("validateSessionFile(codex) asks nothing of a rollout without ordinals (before 0.169)", async () => {
  await using dir = await tempDir();
  const path = await damaged(dir.path, (records) => records.map(without));
  assertEquals(await findings(path), []);
});
