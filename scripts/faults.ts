/**
 * `./denow task faults`: the fault-injection suite. A turn is killed with SIGKILL at every
 * commit point of the scenario (before and after each append, in the middle of it, and while a
 * tool runs), for both wire APIs, with compaction on and off; after each kill, a resume and a
 * second resume. Prints the counts (points killed, records lost, calls sent without an output,
 * earlier bytes changed, ...) and exits 1 when any count but the first is not 0.
 *
 * Then the property tests of tests/properties_test.ts with many more runs (`--property-runs N`,
 * default 500): random sessions with random damage, inspected, resumed and repaired; and, a
 * fifth as many runs each, another tool's file repaired while it is appended to (no line
 * lost), and random session text printed by inspect and resume (no raw control character).
 *
 * Then `archive` killed with SIGKILL at every write step of a first run and of a run after
 * files grew and one was rewritten (testing/faults/archive.ts): after each kill the archive
 * must check right, and the next run must complete it.
 *
 * `--only <text>` runs the kill cases whose label contains the text; `--jobs N` runs N at once.
 *
 * @module
 */
import fc from "fast-check";
import { parseArgs } from "node:util";
import { startEmbeddedModel } from "../src/embedded_model/mod.ts";
import {
  caseLabel,
  type CaseResult,
  casesFor,
  enumerateSlots,
  type FaultCase,
  type FaultConfig,
  runFaultCase,
} from "../testing/faults/case.ts";
import { addCounts, badCounts, zeroCounts } from "../testing/faults/checks.ts";
import { runArchiveFaults } from "../testing/faults/archive.ts";
import { appenderCaseArbitrary, appenderLosesLine } from "../testing/properties/appender.ts";
import { checkSessionCase, sessionCaseArbitrary } from "../testing/properties/check.ts";
import { hostileText, rawControlPrinted } from "../tests/_terminal_properties.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    only: { type: "string" },
    jobs: { type: "string" },
    "property-runs": { type: "string" },
  },
});
const jobs = Math.max(1, Number(values.jobs ?? Math.max(2, navigator.hardwareConcurrency * 2)));
const started = performance.now();
await using model = await startEmbeddedModel();
const address = { baseURL: model.baseURL, apiKey: model.apiKey, model: model.model };

const configs: FaultConfig[] = [
  { wireApi: "responses", compaction: false },
  { wireApi: "responses", compaction: true },
  { wireApi: "chat", compaction: false },
  { wireApi: "chat", compaction: true },
];
const cases: FaultCase[] = [];
for (const config of configs) {
  cases.push(...casesFor(config, await enumerateSlots(address, config)));
}
const chosen = cases.filter((c) => values.only === undefined || caseLabel(c).includes(values.only));
console.log(`Fault injection: ${chosen.length} cases, ${jobs} at a time`);

const total = zeroCounts();
const failed: CaseResult[] = [];
let errors = 0;
let next = 0;
async function worker(): Promise<void> {
  while (next < chosen.length) {
    const c = chosen[next++]!;
    try {
      const result = await runFaultCase(address, c);
      addCounts(total, result.counts);
      if (badCounts(result.counts).length > 0) failed.push(result);
    } catch (error) {
      errors++;
      console.error(`${caseLabel(c)}: ${error instanceof Error ? error.message : error}`);
    }
  }
}
await Promise.all(Array.from({ length: jobs }, worker));

for (const result of failed) {
  console.error(`FAIL ${result.label}: ${badCounts(result.counts).join(", ")}`);
  for (const note of result.notes) console.error(`  ${note}`);
}
const propertyRuns = Number(values["property-runs"] ?? 500);

/** Checks one property in a temp folder of its own; says a counterexample on stderr. */
async function checkProperty<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  holds: (root: string, value: T) => Promise<boolean | void>,
  numRuns: number,
): Promise<fc.RunDetails<[T]>> {
  const root = await Deno.makeTempDir({ prefix: "turnlog-properties-" });
  const details = await fc.check(
    fc.asyncProperty(arbitrary, async (value) => {
      const dir = await Deno.makeTempDir({ dir: root });
      try {
        return await holds(dir, value);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
    { numRuns },
  );
  await Deno.remove(root, { recursive: true });
  if (details.failed) {
    console.error(
      `FAIL property ${name}: ${JSON.stringify(details.counterexample)} (seed ${details.seed})`,
    );
    console.error(`  ${details.errorInstance}`);
  }
  return details;
}

const property = await checkProperty(
  "damaged sessions",
  sessionCaseArbitrary,
  checkSessionCase,
  propertyRuns,
);
const raced = await checkProperty(
  "an appender during a repair",
  appenderCaseArbitrary,
  async (dir, c) => (await appenderLosesLine(dir, c)) === undefined,
  Math.ceil(propertyRuns / 5),
);
const printed = await checkProperty(
  "terminal output",
  hostileText,
  async (dir, text) => (await rawControlPrinted(dir, text)) === undefined,
  Math.ceil(propertyRuns / 5),
);
// The archive killed at every write step of every home, a first run and one after changes.
const archived = await runArchiveFaults();
for (const problem of archived.problems) console.error(`FAIL archive: ${problem}`);

const verdict = (details: { numRuns: number; failed: boolean }, held: string) =>
  `${details.numRuns} (${details.failed ? "the property failed" : held})`;

const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `Points killed:              ${total.pointsKilled} ` +
    `(${
      total.pointsKilled - total.resumesKilled
    } in the turns, ${total.resumesKilled} in first resumes)`,
);
console.log(`Records lost:               ${total.recordsLost}`);
console.log(`Calls sent without output:  ${total.callsWithoutOutput}`);
console.log(`Outputs sent without call:  ${total.outputsWithoutCall}`);
console.log(`Earlier bytes changed:      ${total.bytesChanged}`);
console.log(`Resumes failed:             ${total.resumesFailed}`);
console.log(`Bad lines left:             ${total.problemsLeft}`);
console.log(`Cases that could not run:   ${errors}`);
console.log(`Damaged sessions checked:   ${verdict(property, "every property held")}`);
console.log(`Repairs raced by appends:   ${verdict(raced, "no appended line lost")}`);
console.log(`Hostile texts printed:      ${verdict(printed, "no raw control character")}`);
console.log(
  `Archive runs killed:        ${archived.kills} (${archived.problems.length} problems after them)`,
);
console.log(`Run time:                   ${seconds} s`);
const propertyFailed = property.failed || raced.failed || printed.failed ||
  archived.problems.length > 0;
if (badCounts(total).length > 0 || errors > 0 || chosen.length === 0 || propertyFailed) {
  Deno.exit(1);
}
