/**
 * Repair of Codex rollouts, Claude Code transcripts and Gemini CLI sessions under random damage (the property
 * tests' damage: truncation, bit flips, NUL runs, duplicated, swapped and glued lines, CRLF, a
 * BOM) to the project's generated files: nothing throws, the dry run writes nothing, the plan
 * carried out is the plan shown, every original line stays in the file or the sidecar, the
 * format's check finds nothing repair could mend, inspect finds no call repair promises a
 * result (it converged), and a second repair changes nothing; and on random Gemini histories of
 * checkpoints, rewritten messages and stray responses, the same convergence.
 */
import fc from "fast-check";
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { byteString } from "./_inspect_fixtures.ts";
import { ADAPTERS, detectFormat, validateSessionFile } from "../src/formats/mod.ts";
import { assert } from "./_assert.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { isEmptyPlan, planFileRepair, repairSession } from "../src/repair/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { claudeBasic, claudeCompaction } from "../testing/formats/claude_fixtures.ts";
import { CODEX_SESSION_ID } from "../testing/formats/codex_builder.ts";
import { codexCompaction, codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { REPAIR_FIXTURES } from "../testing/formats/repair_fixtures.ts";
import { geminiBusySession, geminiToolSession } from "../testing/formats/gemini_builder.ts";
import {
  applyAll,
  type Damage,
  damageArbitrary,
  splitLines,
} from "../testing/properties/damage.ts";
import { geminiHistoryArbitrary } from "../testing/properties/gemini_history.ts";
import { readSidecar } from "../testing/sidecar.ts";

/** Every other tool's format of the registry. */
type ForeignFormat = (typeof ADAPTERS)[number]["name"];

/** Runs per property; `TURNLOG_PROPERTY_RUNS` raises it. */
const RUNS = Number(Deno.env.get("TURNLOG_PROPERTY_RUNS") ?? 100);

const encoder = new TextEncoder();

/** The undamaged files damage is applied to, by format. */
const BASES: Record<ForeignFormat, string[]> = {
  "claude-code": [
    claudeBasic(),
    claudeCompaction(),
    ...Object.values(REPAIR_FIXTURES["claude-code"]).map((make) => make().clean),
  ],
  codex: [
    codexTurnIds(),
    codexCompaction(),
    ...Object.values(REPAIR_FIXTURES.codex).map((make) => make().clean),
  ],
  gemini: [geminiToolSession().text(), geminiBusySession().text()],
};

const NAMES: Record<ForeignFormat, string> = {
  "claude-code": `${CLAUDE_SESSION_ID}.jsonl`,
  codex: `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`,
  gemini: "session-2026-12-01T10-00-5a7e0c1d.jsonl",
};

const caseArbitrary: fc.Arbitrary<Case> = fc.record({
  format: fc.constantFrom<ForeignFormat>(...ADAPTERS.map((adapter) => adapter.name)),
  base: fc.nat({ max: 1 << 10 }),
  damages: fc.array(damageArbitrary, { minLength: 1, maxLength: 3 }),
});

/** Lines without their newline, as exact byte strings. */
const linesOf = (bytes: Uint8Array) =>
  splitLines(bytes).map((line) => byteString(line.at(-1) === 10 ? line.subarray(0, -1) : line));

let runs = 0;
/** The cases checked, by format (damage that hides the format leaves a case unchecked). */
const checked = new Map<string, number>();

type Case = { format: ForeignFormat; base: number; damages: Damage[] };

async function check(root: string, c: Case): Promise<void> {
  const bases = BASES[c.format];
  const dir = join(root, `${runs++}`);
  await Deno.mkdir(dir);
  const path = join(dir, NAMES[c.format]);
  const original = applyAll(encoder.encode(bases[c.base % bases.length]!), c.damages);
  await Deno.writeFile(path, original);
  // Damage that hides the format makes it no longer this tool's file: nothing to check here.
  if ((await detectFormat(path)).format !== c.format) return;
  checked.set(c.format, (checked.get(c.format) ?? 0) + 1);

  const dry = await planFileRepair(await inspectSession(path));
  assertEquals(await Deno.readFile(path), original, "the dry run writes nothing");
  const { plan, validation, after } = await repairSession(path);
  assertEquals(plan, dry, "the plan carried out is the plan shown");
  const left = (validation?.findings ?? []).filter((f) => f.kind !== "broken_chain");
  assertEquals(left, [], "only a chain repair cannot know is left");

  const repaired = await Deno.readFile(path);
  const now = new Set(linesOf(repaired));
  const kept = new Set((await readSidecar(path)).map((entry) => byteString(entry.bytes)));
  for (const line of linesOf(original)) {
    if (line.length === 0 || now.has(line) || kept.has(line)) continue;
    throw new Error(`A line is lost: ${JSON.stringify(line.slice(0, 120))}`);
  }
  // Converged: what inspect reads now holds nothing repair promises to mend.
  assertEquals(
    after.orphanCalls.map((call) => `${call.line}: ${call.callId}`),
    [],
    "inspect finds no call repair promises a result",
  );
  assertEquals(isEmptyPlan(await planFileRepair(after)), true, "inspect plans nothing more");
  const again = await repairSession(path);
  assertEquals(isEmptyPlan(again.plan), true, "a second repair finds nothing to do");
  assertEquals(await Deno.readFile(path), repaired, "and changes nothing");
  assertEquals((await validateSessionFile(path, c.format)).findings, validation?.findings);
}

Deno.test("repairSession() keeps its promises on randomly damaged files of every other tool's format", async () => {
  const root = await Deno.makeTempDir({ prefix: "turnlog-foreign-properties-" });
  try {
    await fc.assert(fc.asyncProperty(caseArbitrary, (c) => check(root, c)), {
      numRuns: RUNS,
      examples: [
        // A stray result inside a Gemini message on a line glued to another (and a call id whose
        // bit flipped): repair left it "as is", and a second repair took it out.
        [{
          format: "gemini",
          base: 0,
          damages: [
            { kind: "bit_flip", at: 127912528, bit: 0 },
            { kind: "glue_lines", line: 175944950 },
            { kind: "bit_flip", at: 0, bit: 0 },
          ],
        }],
        // A Claude Code response's text line swapped to the end, after its call lines and their
        // results: the chain puts it first, and what hangs off its call lines after it; the
        // reader moved the call line alone and read a result before its call.
        [{
          format: "claude-code",
          base: 0,
          damages: [{ kind: "truncate_in_character", at: 833159357 }, {
            kind: "swap_lines",
            line: 18,
            other: 11,
          }],
        }],
        [{
          format: "claude-code",
          base: 257,
          damages: [
            { kind: "swap_lines", line: 408109959, other: 814730872 },
            { kind: "swap_lines", line: 593849731, other: 875259244 },
          ],
        }],
        // A result line and a prompt swapped ahead of the lines the chain reads them after.
        [{
          format: "claude-code",
          base: 257,
          damages: [
            { kind: "swap_lines", line: 407412423, other: 814730788 },
            { kind: "swap_lines", line: 593849731, other: 875259244 },
          ],
        }],
        // A Codex output whose "call_id" key lost a bit (two lines glued too): the check took
        // its missing id for one and threw.
        [{
          format: "codex",
          base: 127,
          damages: [{ kind: "glue_lines", line: 0 }, { kind: "bit_flip", at: 4270896, bit: 0 }],
        }],
      ],
    });
    // Every format of the registry was checked, and most cases were (not all skipped).
    const counts = ADAPTERS.map((adapter) => [adapter.name, checked.get(adapter.name) ?? 0]);
    assert(counts.every(([, n]) => Number(n) > 0), `cases checked: ${JSON.stringify(counts)}`);
    const total = [...checked.values()].reduce((a, b) => a + b, 0);
    assert(total >= RUNS / 2, `only ${total} of ${RUNS} cases checked`);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("repairSession() converges on Gemini histories of checkpoints, rewritten messages and stray responses", async () => {
  const root = await Deno.makeTempDir({ prefix: "turnlog-gemini-converge-" });
  let run = 0;
  try {
    await fc.assert(
      fc.asyncProperty(geminiHistoryArbitrary, async (text) => {
        const path = join(root, `session-2026-12-01T10-00-${run++}.jsonl`);
        await Deno.writeTextFile(path, text);
        const { plan, validation, after } = await repairSession(path);
        assertEquals(plan.leftAsIs, [], "nothing is left as it is");
        assertEquals(validation?.findings, [], "Gemini's check passes");
        assertEquals(after.orphanCalls.map((call) => call.callId), [], "no call without output");
        assertEquals(isEmptyPlan(await planFileRepair(after)), true, "inspect plans nothing more");
        const repaired = await Deno.readFile(path);
        const again = await repairSession(path);
        assertEquals(isEmptyPlan(again.plan), true, "a second repair finds nothing to do");
        assertEquals(await Deno.readFile(path), repaired, "and changes nothing");
        const now = new Set(linesOf(repaired));
        const kept = new Set((await readSidecar(path)).map((entry) => byteString(entry.bytes)));
        for (const line of linesOf(encoder.encode(text))) {
          if (!now.has(line) && !kept.has(line)) throw new Error(`A line is lost: ${line}`);
        }
      }),
      { numRuns: RUNS },
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
