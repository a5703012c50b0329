import { runArchiveFaults } from "../testing/faults/archive.ts";
import { assert, assertEquals } from "./_assert.ts";

/**
 * `archive` killed with SIGKILL at its write steps (every third here, over the Codex home, to
 * keep the suite short; `./denow task faults` kills it at every step of every home).
 */
Deno.test("runArchiveFaults(): archive killed at its write steps leaves a right archive, and the next run completes it", async () => {
  const report = await runArchiveFaults({ homes: ["codex"], every: 3 });
  // A first run writes 3 chunks and an index segment, 4 steps each (every third: 6 kills);
  // the second at least a chunk and a segment (3 kills).
  assert(report.kills >= 9, `only ${report.kills} kills`);
  assertEquals(report.problems, []);
});
