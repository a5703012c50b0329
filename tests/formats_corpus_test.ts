/**
 * Reads every real Codex and Claude Code file of `../shared/corpus` (beside the repository)
 * when it is there, and checks what the inspector and resume rely on. The files are not the
 * project's: they are only read, never copied.
 */
import { fileURLToPath } from "node:url";
import { basename, join, relative } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { paired, resumedHistory, segment } from "./_formats.ts";
import { collectSession, detectFormat, type SessionFormat } from "../src/formats/mod.ts";

const CORPUS = fileURLToPath(new URL("../../shared/corpus/", import.meta.url));

async function exists(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}

async function* files(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* files(path);
    else if (entry.name.endsWith(".jsonl")) yield path;
  }
}

/** The format a corpus file is in, from the folder it was filed under. */
const expectedFormat = (path: string): SessionFormat =>
  relative(CORPUS, path).startsWith("codex/") ? "codex" : "claude-code";

/**
 * The tool calls of a file, counted naively from its raw lines: each distinct call id with the
 * lines it appears on (a response split over lines, or replayed, names a call more than once).
 */
async function naiveCalls(path: string, format: SessionFormat): Promise<Map<string, number[]>> {
  const calls = new Map<string, number[]>();
  const text = await Deno.readTextFile(path);
  text.split("\n").forEach((raw, index) => {
    let value;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    const found: string[] = [];
    if (format === "codex") {
      const p = value?.payload;
      if (
        value?.type === "response_item" &&
        ["function_call", "custom_tool_call", "local_shell_call"].includes(p?.type)
      ) {
        found.push(p.call_id ?? p.id);
      }
    } else if (value?.type === "assistant" && Array.isArray(value?.message?.content)) {
      for (const block of value.message.content) {
        if (block?.type === "tool_use") found.push(block.id);
      }
    }
    for (const id of found) calls.set(id, [...(calls.get(id) ?? []), index + 1]);
  });
  return calls;
}

Deno.test("readForeignSession() reads every file of the shared corpus", async (t) => {
  if (!(await exists(CORPUS))) {
    console.log(`skipped: no corpus at ${CORPUS} (the shared folder beside the repository)`);
    return;
  }
  const findings: string[] = [];
  let count = 0;
  for await (const path of files(CORPUS)) {
    count++;
    const name = relative(CORPUS, path);
    await t.step(name, async () => {
      const format = expectedFormat(path);
      const detected = await detectFormat(path);
      assertEquals(detected.format, format, `${name}: ${JSON.stringify(detected)}`);
      const { entries, records, facts } = await collectSession(path, format);
      assertEquals(facts.format, format);
      // Every call on the active branch is a record; every other call is on a line off it.
      const calls = await naiveCalls(path, format);
      const branchCalls = new Set<string>();
      for (const record of records) {
        if (record.type === "response_item" && record.payload.type === "function_call") {
          branchCalls.add(record.payload.callId);
        }
      }
      const recordLines = new Set(entries.filter((e) => e.record).map((e) => e.line));
      for (const [id, lines] of calls) {
        if (branchCalls.has(id)) continue;
        assert(
          lines.every((line) => !recordLines.has(line)),
          `${name}: call ${id} on an active line is missing`,
        );
      }
      for (const id of branchCalls) assert(calls.has(id), `${name}: call ${id} is not in the file`);
      // The inspector's per-turn counts add up to the calls on the branch.
      const report = segment(path, entries);
      const counted = report.turns.reduce((sum, turn) => sum + turn.counts.function_call, 0) +
        report.header.counts.function_call;
      assertEquals(
        counted,
        records.filter((r) => r.type === "response_item" && r.payload.type === "function_call")
          .length,
      );
      // A resume of the records pairs every call.
      const resumed = resumedHistory(records);
      assert(paired(resumed.history), `${name}: unpaired history`);
      const offBranch = [...calls.keys()].filter((id) => !branchCalls.has(id)).length;
      const notes = [
        facts.state !== "records" ? facts.state : "",
        report.problems.length
          ? `${report.problems.length} problems (${
            [...new Set(report.problems.map((p) => p.kind))].join(", ")
          })`
          : "",
        report.orphanCalls.length
          ? `orphan calls at lines ${report.orphanCalls.map((o) => o.line).join(", ")}`
          : "",
        facts.forks.length
          ? `forks ${
            facts.forks.map((f) => `${f.kind}@${f.fromLine}:${f.firstLine}-${f.lastLine}`).join(" ")
          }`
          : "",
        offBranch ? `${offBranch} calls off the branch` : "",
        facts.claudeCode?.cycleLine ? `cycle at line ${facts.claudeCode.cycleLine}` : "",
        facts.claudeCode?.danglingParentLine
          ? `dangling parent at line ${facts.claudeCode.danglingParentLine}`
          : "",
        facts.claudeCode?.supersededLines
          ? `${facts.claudeCode.supersededLines} replayed lines`
          : "",
        facts.claudeCode?.sideLines ? `${facts.claudeCode.sideLines} side lines` : "",
        facts.claudeCode?.compactions ? `${facts.claudeCode.compactions} compactions` : "",
        facts.subagents.length ? `${facts.subagents.length} subagents` : "",
        resumed.synthesized.length
          ? `${resumed.synthesized.length} outputs resume would synthesize`
          : "",
        resumed.dropped.length ? `${resumed.dropped.length} outputs resume would drop` : "",
      ].filter((note) => note !== "");
      findings.push(
        `${basename(path).slice(0, 44).padEnd(44)} ${format.padEnd(11)} turns ${
          String(facts.turns).padStart(2)
        }  calls ${String(branchCalls.size).padStart(3)}${
          notes.length ? "  " + notes.join("; ") : ""
        }`,
      );
    });
  }
  console.log(`corpus: ${count} files read from ${CORPUS}\n${findings.join("\n")}`);
});
