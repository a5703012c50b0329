import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { resumeSession } from "../src/resume/mod.ts";

const ROOT = fileURLToPath(new URL("../sessions", import.meta.url));
const index = JSON.parse(await Deno.readTextFile(join(ROOT, "examples.json"))) as {
  sessions: { id: string; file: string; title: string; turns: number; records: number }[];
};

/** What one example session shows, as its report and its resume tell it. */
interface Shown {
  /** Each turn's outcome (null: killed), resumed or not, and policy. */
  turns: [string | null, boolean, string][];
  /** The tools called, in order. */
  calls: string[];
  /** The tools whose call was denied approval. */
  denied: string[];
  synthesized: number;
  checkpoints: number;
  wireApi: string | null;
}

/** What each example session must show, by its title: its own kinds, nothing merged. */
const SHOWN: Record<string, Shown> = {
  "fresh: one turn, list_dir": {
    turns: [["succeeded", false, "ask-changes"]],
    calls: ["list_dir"],
    denied: [],
    synthesized: 0,
    checkpoints: 0,
    wireApi: "responses",
  },
  "resumed: read, search, recall": {
    turns: [
      ["succeeded", false, "ask-changes"],
      ["succeeded", true, "ask-changes"],
      ["succeeded", true, "ask-changes"],
    ],
    calls: ["read_file", "search_text"],
    denied: [],
    synthesized: 0,
    checkpoints: 0,
    wireApi: "responses",
  },
  "interrupted then resumed: orphan call repaired": {
    turns: [
      ["succeeded", false, "ask-changes"],
      [null, true, "ask-changes"],
      ["succeeded", true, "ask-changes"],
    ],
    calls: ["list_dir", "slow_task", "slow_task"],
    denied: [],
    synthesized: 1,
    checkpoints: 0,
    wireApi: "responses",
  },
  "approval: denied, then run under --policy auto": {
    turns: [["succeeded", false, "ask-changes"], ["succeeded", true, "auto"]],
    calls: ["write_file", "write_file"],
    denied: ["write_file"],
    synthesized: 0,
    checkpoints: 0,
    wireApi: "responses",
  },
  "chat wire API: read, then list": {
    turns: [["succeeded", false, "ask-changes"], ["succeeded", true, "ask-changes"]],
    calls: ["read_file", "list_dir"],
    denied: [],
    synthesized: 0,
    checkpoints: 0,
    wireApi: "chat",
  },
  "cancelled: Ctrl-C while slow_task ran": {
    turns: [["cancelled", false, "ask-changes"]],
    calls: ["slow_task"],
    denied: [],
    synthesized: 0,
    checkpoints: 0,
    wireApi: "responses",
  },
  "compacted: a checkpoint mid-conversation, then resumed from it": {
    turns: [
      ["succeeded", false, "ask-changes"],
      ["succeeded", true, "ask-changes"],
      ["succeeded", true, "ask-changes"],
      ["succeeded", true, "ask-changes"],
    ],
    calls: ["read_file", "list_dir", "read_file"],
    denied: [],
    synthesized: 0,
    checkpoints: 2,
    wireApi: "responses",
  },
};

Deno.test("the example sessions are listed once each, with what each shows", () => {
  assertEquals(index.sessions.map((entry) => entry.title).sort(), Object.keys(SHOWN).sort());
});

for (const entry of index.sessions) {
  Deno.test(`the example session "${entry.title}" is healthy and shows what its title says`, async () => {
    const report = InspectReportSchema.parse(
      await inspectSession(join(ROOT, entry.file), { root: ROOT, entries: true }),
    );
    assertEquals(report.problems, []);
    assertEquals(report.orphanCalls, []);
    assertEquals([report.totals.turns, report.session.records], [entry.turns, entry.records]);
    const entries = report.turns.flatMap((turn) => turn.entries ?? []);
    const shown: Shown = {
      turns: report.turns.map((turn) => [turn.outcome, turn.resumed, turn.policy.approval]),
      calls: entries.flatMap((e) => e.kind === "function_call" ? [e.name] : []),
      denied: entries.flatMap((e) =>
        e.kind === "function_call_output" && e.text.startsWith("Approval denied: ")
          ? [e.toolName]
          : []
      ),
      synthesized: report.synthesizedOutputs.length,
      checkpoints: report.checkpoints.length,
      wireApi: report.session.wireApi,
    };
    assertEquals(shown, SHOWN[entry.title]);
    const resumed = await resumeSession(entry.id, { root: ROOT });
    assertEquals(resumed.synthesizedItems, [], "resume has nothing to repair");
    assertEquals(
      resumed.replayedFrom !== undefined,
      shown.checkpoints > 0,
      "resume starts at the checkpoint",
    );
  });
}

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
