/**
 * Repair on real files of `../shared/corpus` (beside the repository), when it is there: a copy
 * of each Claude Code transcript cut right after assistant lines that hold a `tool_use`, and of
 * each Codex rollout cut right after a call, written to a temp folder (the corpus is only read,
 * never copied into the repository), then repaired. The copies' active branch pairs every
 * call, Claude Code's parent chain stays connected, every byte of the cut copy is kept, and a
 * second repair changes nothing.
 */
import { basename, join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { byteString, sidecarPayloadLines, splitLines } from "./_inspect_fixtures.ts";
import { type ForeignFormat, validateSessionFile } from "../src/formats/mod.ts";
import { inspectSession, isEmptyPlan, repairSession } from "../src/inspect/mod.ts";
import { quarantinePath } from "../src/store/mod.ts";

import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
/** The lines after which a cut leaves a call without its result: the first, middle and last. */
function cutPoints(lines: string[], format: ForeignFormat): number[] {
  const found: number[] = [];
  lines.forEach((text, at) => {
    let value;
    try {
      value = JSON.parse(text);
    } catch {
      return;
    }
    const holds = format === "codex"
      ? value?.type === "response_item" &&
        ["function_call", "custom_tool_call"].includes(value.payload?.type)
      : value?.type === "assistant" && Array.isArray(value.message?.content) &&
        value.message.content.some((block: { type?: string }) => block?.type === "tool_use");
    if (holds) found.push(at + 1);
  });
  if (found.length === 0) return [];
  return [...new Set([found[0]!, found[Math.floor(found.length / 2)]!, found.at(-1)!])];
}

/** Cuts a copy after line `cut`, repairs it twice, and checks what the issue promises. */
async function cutAndRepair(dir: string, source: string, cut: number) {
  const lines = (await Deno.readTextFile(source)).split("\n");
  const folder = join(dir, `cut-${cut}`);
  await Deno.mkdir(folder);
  const path = join(folder, basename(source));
  await Deno.writeTextFile(path, lines.slice(0, cut).join("\n") + "\n");
  const before = await Deno.readFile(path);
  const where = `${basename(source)} cut after line ${cut}`;
  const { plan, validation } = await repairSession(path);
  assert(plan.inserted.length > 0, `${where}: a result is written`);
  assertEquals(validation?.findings, [], `${where}: the validator accepts the repaired copy`);
  const report = await inspectSession(path);
  assertEquals(report.orphanCalls, [], `${where}: every call on the branch is answered`);
  assert(report.healthy, `${where}: the inspector finds it healthy`);
  const repaired = await Deno.readFile(path);
  const now = new Set(splitLines(repaired).map(byteString));
  const kept = new Set(sidecarPayloadLines(await readIfThere(quarantinePath(path))));
  for (const line of splitLines(before).map(byteString)) {
    if (line.length > 0) assert(now.has(line) || kept.has(line), `${where}: a line is lost`);
  }
  const again = await repairSession(path);
  assert(isEmptyPlan(again.plan), `${where}: a second repair finds nothing to do`);
  assertEquals(await Deno.readFile(path), repaired, `${where}: and changes nothing`);
  return plan;
}

async function readIfThere(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Uint8Array();
    throw error;
  }
}

/** The corpus's session files of a format (Claude Code: conversations, not subagents). */
async function sessionsOf(format: ForeignFormat): Promise<string[]> {
  const root = join(CORPUS, format === "codex" ? "codex" : "claude/projects");
  const found: string[] = [];
  for await (const path of corpusFiles(root)) {
    if (format === "claude-code" && basename(path).startsWith("agent-")) continue;
    found.push(path);
  }
  return found;
}

for (const format of ["claude-code", "codex"] as const) {
  const what = format === "codex" ? "Codex rollout cut after a call" : "Claude Code transcript " +
    "cut after a tool_use";
  Deno.test({
    ...needing(
      `repairSession() on each corpus ${what}: paired, connected, lossless, idempotent`,
      CORPUS_MISSING,
    ),
    fn: async () => {
      await using dir = await tempDir();
      let repaired = 0;
      for (const source of await sessionsOf(format)) {
        const lines = (await Deno.readTextFile(source)).split("\n");
        for (const cut of cutPoints(lines, format)) {
          const copy = join(dir.path, `${repaired}`);
          await Deno.mkdir(copy);
          await cutAndRepair(copy, source, cut);
          assertEquals(
            (await validateSessionFile(join(copy, `cut-${cut}`, basename(source)), format)).valid,
            true,
          );
          repaired++;
        }
      }
      assert(repaired >= (format === "codex" ? 4 : 10), `only ${repaired} cut copies repaired`);
      console.log(`${repaired} cut copies repaired`);
    },
  });
}
