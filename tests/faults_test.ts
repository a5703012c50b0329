import { assertEquals } from "./_assert.ts";
import { startEmbeddedModel } from "../src/embedded_model/mod.ts";
import { encodeRecords } from "../src/record/mod.ts";
import { connectModel, runTurn } from "../src/runtime/mod.ts";
import type { CommitDetail, CommitPoint } from "../src/store/mod.ts";
import {
  caseLabel,
  enumerateSlots,
  type FaultCase,
  type FaultConfig,
  runFaultCase,
} from "../testing/faults/case.ts";
import { badCounts } from "../testing/faults/checks.ts";
import type { KillMoment } from "../testing/faults/child.ts";
import type { SlotPoint } from "../testing/faults/scenario.ts";
import { join } from "node:path";

Deno.test("runTurn calls onCommit before and after each append, in commit order", async () => {
  await using model = await startEmbeddedModel();
  await using connection = await connectModel({
    baseURL: model.baseURL,
    apiKey: model.apiKey,
    model: model.model,
  });
  const base = await Deno.makeTempDir({ prefix: "turnlog-faults-test-" });
  try {
    await Deno.writeTextFile(join(base, "a.txt"), "alpha\n");
    // At "before" the records are not in the file yet; at "after" all their bytes are.
    const seen: string[] = [];
    let sizeBefore = 0;
    const onCommit = async (point: CommitPoint, detail: CommitDetail) => {
      const { size } = await Deno.stat(detail.path);
      if (detail.phase === "before") {
        sizeBefore = size;
        return;
      }
      const grew = size - sizeBefore === encodeRecords(detail.records).length;
      seen.push(`${point}: ${detail.records.map((r) => r.type).join(", ")} ${grew}`);
    };
    const events = await Array.fromAsync(runTurn({
      message: "read a.txt",
      connection,
      sessionsDir: join(base, "sessions"),
      workspace: base,
      onCommit,
    }));
    assertEquals(events.at(-1)?.type, "run_succeeded");
    assertEquals(seen, [
      "turn_start: turn_context, response_item, response_item true",
      "model_output: response_item true",
      "tool_output: response_item true",
      "model_output: response_item true",
      "run_finished: run_finished true",
    ]);
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

const RESPONSES: FaultConfig = { wireApi: "responses", compaction: false };
const CHAT: FaultConfig = { wireApi: "chat", compaction: false };

/**
 * A few representative kills: each kind of point, each way of dying, both wires. `kills` is 2
 * where the kill leaves calls without an output, so the first resume is killed as well (torn
 * in the middle of appending the synthesized outputs).
 */
const REPRESENTATIVE: {
  config: FaultConfig;
  point: SlotPoint;
  turn: number;
  at: KillMoment;
  kills: number;
}[] = [
  { config: RESPONSES, point: "turn_start", turn: 0, at: "torn", kills: 1 },
  { config: CHAT, point: "model_output", turn: 0, at: "after", kills: 2 },
  { config: RESPONSES, point: "tool_running", turn: 1, at: "during", kills: 2 },
  { config: { ...CHAT, compaction: true }, point: "checkpoint", turn: 1, at: "torn", kills: 1 },
  {
    config: { ...RESPONSES, compaction: true },
    point: "checkpoint",
    turn: 2,
    at: "before",
    kills: 1,
  },
  { config: CHAT, point: "tool_output", turn: 2, at: "torn_newline", kills: 2 },
  { config: RESPONSES, point: "run_finished", turn: 2, at: "torn", kills: 1 },
];

Deno.test("runFaultCase: a turn killed at representative commit points loses nothing and resumes paired", async (t) => {
  await using model = await startEmbeddedModel();
  const address = { baseURL: model.baseURL, apiKey: model.apiKey, model: model.model };
  const slotsOf = new Map<string, Awaited<ReturnType<typeof enumerateSlots>>>();
  for (const { config, point, turn, at, kills } of REPRESENTATIVE) {
    const key = `${config.wireApi}/${config.compaction}`;
    if (!slotsOf.has(key)) slotsOf.set(key, await enumerateSlots(address, config));
    const slot = slotsOf.get(key)!.find((s) => s.point === point && s.turn === turn);
    if (!slot) throw new Error(`The scenario has no ${point} in turn ${turn} for ${key}`);
    const c: FaultCase = {
      ...config,
      kill: { slot: slot.index, at },
      point: `turn ${turn} ${point}#${slot.index}`,
      resumeKill: "torn",
    };
    await t.step(caseLabel(c), async () => {
      const result = await runFaultCase(address, c);
      assertEquals(badCounts(result.counts), [], result.notes.join("\n"));
      assertEquals(result.counts.pointsKilled, kills);
    });
  }
});
