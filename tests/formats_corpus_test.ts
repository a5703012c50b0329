/**
 * Reads every real Codex and Claude Code file of `../shared/corpus` (beside the repository)
 * when it is there, and checks what the inspector and resume rely on. The files are not the
 * project's: they are only read, never copied.
 */
import { fileURLToPath } from "node:url";
import { basename, join, relative } from "node:path";
import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { claudeReadingOf, paired, resumedHistory, segment } from "./_formats.ts";
import { tempDir } from "./_helpers.ts";
import { eventOf, harness, pairedCallCount } from "./_runtime_helpers.ts";
import { collectSession, detectFormat, type SessionFormat } from "../src/formats/mod.ts";
import {
  claudeCodeFactsOf,
  findClaudeSession,
  listClaudeSessions,
} from "../src/formats/claude_code/mod.ts";
import { findCodexSession, listCodexSessions } from "../src/formats/codex/mod.ts";
import { importSession } from "../src/import/mod.ts";
import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { SessionFileError } from "../src/record/mod.ts";
import { inspectInProcess } from "./_cli.ts";

import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
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

Deno.test({
  ...needing("readForeignSession() reads every file of the shared corpus", CORPUS_MISSING),
  fn: async (t) => {
    const findings: string[] = [];
    let count = 0;
    for await (const path of corpusFiles(CORPUS)) {
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
        for (const id of branchCalls) {
          assert(calls.has(id), `${name}: call ${id} is not in the file`);
        }
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
              facts.forks.map((f) => `${f.kind}@${f.fromLine}:${f.firstLine}-${f.lastLine}`).join(
                " ",
              )
            }`
            : "",
          offBranch ? `${offBranch} calls off the branch` : "",
          claudeCodeFactsOf(facts)?.cycleLine
            ? `cycle at line ${claudeCodeFactsOf(facts)!.cycleLine}`
            : "",
          claudeCodeFactsOf(facts)?.danglingParentLine
            ? `dangling parent at line ${claudeCodeFactsOf(facts)!.danglingParentLine}`
            : "",
          claudeCodeFactsOf(facts)?.supersededLines
            ? `${claudeCodeFactsOf(facts)!.supersededLines} replayed lines`
            : "",
          claudeCodeFactsOf(facts)?.sideLines
            ? `${claudeCodeFactsOf(facts)!.sideLines} side lines`
            : "",
          claudeCodeFactsOf(facts)?.compactions
            ? `${claudeCodeFactsOf(facts)!.compactions} compactions`
            : "",
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
  },
});

const CLI = fileURLToPath(new URL("../cli/inspect.ts", import.meta.url));

/** Runs `cli/inspect.ts` as a user would, in a child process. */
async function inspectCli(args: string[]) {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, ...args],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The bytes and modification time of a file: what "never written" means. */
async function fingerprint(path: string) {
  return { bytes: await Deno.readFile(path), mtime: (await Deno.stat(path)).mtime?.getTime() };
}

Deno.test({
  ...needing(
    "cli/inspect.ts, then import and resume, on every file of the shared corpus",
    CORPUS_MISSING,
  ),
  fn: async () => {
    const paths = await Array.fromAsync(corpusFiles(CORPUS));
    for (const path of paths) {
      const name = relative(CORPUS, path);
      const { records } = await collectSession(path);
      const calls = records.filter((r) =>
        r.type === "response_item" && r.payload.type === "function_call"
      ).length;
      for (const args of [[path], ["--json", path], ["--json", "--entries", path]]) {
        const ran = await inspectInProcess(args);
        const all = ran.stdout + ran.stderr;
        assert(!/\n\s+at .*(file|ext):/.test(all) && !/Uncaught/.test(all), `${name}: ${all}`);
        assert(
          ran.code === 0 || ran.code === 1,
          `${name} ${args[0]}: exit ${ran.code} ${ran.stderr}`,
        );
        if (args[0] !== "--json") continue;
        const report = InspectReportSchema.parse(JSON.parse(ran.stdout));
        assertEquals(report.session.format, expectedFormat(path), name);
        assertEquals(ran.code, report.healthy ? 0 : 1, name);
        if (!report.healthy) {
          assert(report.problems.length + report.orphanCalls.length > 0, name);
        }
        const counted = report.turns.reduce((sum, turn) => sum + turn.counts.function_call, 0) +
          report.header.counts.function_call;
        assertEquals(counted, calls, `${name}: per-turn calls`);
      }
    }
    // A child process as a user runs it, once per format.
    for (const dir of ["codex", "claude/projects"]) {
      const path = paths.find((p) => relative(CORPUS, p).startsWith(dir))!;
      const ran = await inspectCli([path]);
      assert(ran.code === 0 || ran.code === 1, ran.stderr);
      assert(ran.stdout.startsWith("Session "), ran.stdout);
    }
    await using h = await harness();
    for (const path of paths) {
      const name = relative(CORPUS, path);
      const before = await fingerprint(path);
      const { facts } = await collectSession(path);
      if (facts.state !== "records") {
        await assertRejects(() => importSession(path, { root: h.sessionsDir }), SessionFileError);
        continue;
      }
      const imported = await importSession(path, { root: h.sessionsDir });
      for (const wireApi of ["responses", "chat"] as const) {
        const sent = h.sent.length;
        const events = await h.turn("what have we done so far?", {
          sessionId: imported.sessionId,
          model: h.model.model,
          wireApi,
        });
        eventOf(events, "run_succeeded");
        // The first request of the turn carries the whole imported history, every call paired.
        assert(pairedCallCount(h.sent[sent]) >= imported.calls, `${name} (${wireApi})`);
        assertEquals(Array.isArray(h.sent[sent].input), wireApi === "responses");
      }
      assertEquals(await fingerprint(path), before, `${name} was written`);
    }
  },
});

Deno.test({
  ...needing(
    "listing and lookup work on the corpus's Claude Code projects folder and a Codex tree of its rollouts",
    CORPUS_MISSING,
  ),
  fn: async () => {
    const projects = join(CORPUS, "claude", "projects");
    const listing = await listClaudeSessions(projects, { limit: 1000 });
    assert(listing.sessions.length > 0);
    for (const session of listing.sessions) {
      assert(!session.id.startsWith("agent-") && session.sizeBytes > 0, session.path);
      assertEquals((await findClaudeSession(projects, session.id)).path, session.path);
    }
    const listed = await inspectInProcess([
      "--list",
      "--limit",
      "1000",
      "--sessions-dir",
      projects,
    ]);
    assertEquals(listed.code, 0, listed.stderr);
    assertEquals(
      listed.stdout.split("\n").filter((line) => /^[0-9a-f]{8}/.test(line)).length,
      listing.sessions.length,
    );
    const first = listing.sessions[0]!;
    const shown = await inspectInProcess(["--sessions-dir", projects, first.id.slice(0, 8)]);
    assert(shown.stdout.startsWith(`Session ${first.id}`), shown.stdout + shown.stderr);
    // Codex keeps rollouts in day folders: a tree of the corpus's rollouts, in a temp folder.
    await using tree = await tempDir();
    const rollouts = (await Array.fromAsync(corpusFiles(join(CORPUS, "codex"))))
      .filter((path) => basename(path).startsWith("rollout-"));
    for (const path of rollouts) {
      const day = basename(path).slice(8, 18).replaceAll("-", "/");
      await Deno.mkdir(join(tree.path, day), { recursive: true });
      await Deno.copyFile(path, join(tree.path, day, basename(path)));
    }
    const codex = await listCodexSessions(tree.path, { limit: 1000 });
    assertEquals(codex.sessions.length, rollouts.length);
    for (const session of codex.sessions) {
      assertEquals(
        basename((await findCodexSession(tree.path, session.id)).path),
        basename(session.path),
      );
    }
    const byPrefix = await inspectInProcess([
      "--json",
      "--sessions-dir",
      tree.path,
      codex.sessions[0]!.id.slice(0, 13),
    ]);
    assertEquals(
      InspectReportSchema.parse(JSON.parse(byPrefix.stdout)).session.id,
      codex.sessions[0]!.id,
    );
  },
});

Deno.test({
  ...needing(
    "readClaudeTranscript() reads every real Claude Code transcript the same whether the first pass keeps the parsed lines or the second reads them again",
    CORPUS_MISSING,
  ),
  fn: async () => {
    let read = 0;
    for await (const path of corpusFiles(join(CORPUS, "claude"))) {
      const once = await claudeReadingOf(path, Infinity);
      assertEquals(await claudeReadingOf(path, 0), once, relative(CORPUS, path));
      read++;
    }
    assert(read > 0, "no Claude Code transcript in the corpus");
  },
});
