import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";

const ROOT = fileURLToPath(new URL("../sessions", import.meta.url));
const index = JSON.parse(await Deno.readTextFile(join(ROOT, "examples.json"))) as {
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

Deno.test("make_examples gives the shipped example sessions byte for byte (fixed clock, seeded ids)", async () => {
  const out = await Deno.makeTempDir({ prefix: "turnlog-examples-" });
  try {
    const script = fileURLToPath(new URL("../scripts/make_examples.ts", import.meta.url));
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", script, "--out", out],
      stdout: "null",
      stderr: "piped",
    }).output();
    assertEquals(run.code, 0, new TextDecoder().decode(run.stderr));
    assertEquals(
      await Deno.readTextFile(join(out, "examples.json")),
      await Deno.readTextFile(join(ROOT, "examples.json")),
    );
    for (const entry of index.sessions) {
      assertEquals(
        await Deno.readTextFile(join(out, entry.file)),
        await Deno.readTextFile(join(ROOT, entry.file)),
        entry.title,
      );
    }
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
