import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { InspectReportSchema } from "../src/inspect/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";

const ROOT = fileURLToPath(new URL("../sessions/examples", import.meta.url));
const index = JSON.parse(await Deno.readTextFile(join(ROOT, "index.json"))) as {
  sessions: { id: string; file: string; title: string; turns: number; records: number }[];
};

Deno.test("the shipped example sessions are healthy and show what their titles say", async () => {
  const kinds = new Set<string>();
  for (const entry of index.sessions) {
    const report = InspectReportSchema.parse(
      await inspectSession(join(ROOT, entry.file), { root: ROOT }),
    );
    assertEquals(report.problems, [], entry.title);
    assertEquals(report.orphanCalls, [], entry.title);
    assertEquals(
      [report.totals.turns, report.session.records],
      [entry.turns, entry.records],
      entry.title,
    );
    const resumed = await resumeSession(entry.id, { root: ROOT });
    assertEquals(resumed.synthesizedItems, [], `${entry.title}: resume has nothing to repair`);
    if (report.synthesizedOutputs.length > 0) kinds.add("synthesized");
    if (report.checkpoints.length > 0) {
      kinds.add("checkpoint");
      assert(resumed.replayedFrom !== undefined, `${entry.title}: resume starts at the checkpoint`);
    }
    if (report.turns.some((turn) => turn.outcome === "cancelled")) kinds.add("cancelled");
    if (report.turns.some((turn) => turn.outcome === null)) kinds.add("killed");
    if (report.session.wireApi === "chat") kinds.add("chat");
  }
  assertEquals([...kinds].sort(), ["cancelled", "chat", "checkpoint", "killed", "synthesized"]);
});
