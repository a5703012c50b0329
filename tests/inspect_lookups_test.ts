/**
 * The inspector with its lookups off (`InspectOptions.lookups: false`, the catalog's facts):
 * nothing is looked up beside what the reader reads, and the report is the full one's but for
 * what a lookup gives.
 */
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { makeStory } from "./_inspect_fixtures.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { type InspectReport, inspectSession } from "../src/inspect/mod.ts";
import { adapterOfFile } from "../src/formats/mod.ts";
import { factsOf, reportColumns } from "../src/catalog/_facts.ts";
import { importCommand, resumeCommand } from "../cli/_commands.ts";
import { countIo } from "../testing/io_counter.ts";

/** The report as a lookup-free read gives it: no continue point, no subagent's title. */
function unlooked(report: InspectReport): InspectReport {
  const own = report.session.format === "turnlog";
  return {
    ...report,
    ...(own ? { continueCommand: null, continuePrefix: null } : {}),
    subagents: report.subagents.map((subagent) => ({ ...subagent, title: null })),
  };
}

Deno.test("inspectSession() with lookups: false asks no store where a turnlog session continues, the rest of its report the same", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const options = { root: dir.path, commandFor: resumeCommand };
  const full = await inspectSession(story.path, options);
  assert(full.continuePrefix !== null, "the full report has a prefix to leave out");
  using io = countIo();
  const lean = await inspectSession(story.path, { ...options, lookups: false });
  // The store's day folders are not listed to find the shortest prefix.
  assertEquals(io.take().dirsListed, 0);
  assertEquals([lean.continueCommand, lean.continuePrefix], [null, null]);
  assertEquals(lean, unlooked(full));
});

Deno.test(
  needing(
    "inspectSession() with lookups: false reads no subagent's head for its title, the corpus's reports the full ones' but for those titles",
    CORPUS_MISSING,
  ),
  async () => {
    let titled = 0, links = 0;
    for await (const path of corpusFiles(CORPUS)) {
      const options = { importCommandFor: importCommand, priced: false };
      using io = countIo();
      const full = await inspectSession(path, options);
      const fullReads = io.take().reads.length;
      const lean = await inspectSession(path, { ...options, lookups: false });
      const leanReads = io.take().reads.length;
      assertEquals(lean, unlooked(full), path);
      // Each subagent's title was a read of its transcript's head the lean read does not make.
      const linked = full.subagents.length;
      assert(linked === 0 ? leanReads === fullReads : leanReads < fullReads, path);
      links += linked;
      titled += full.subagents.filter((subagent) => subagent.title !== null).length;
    }
    // The corpus's transcripts start subagents, whose titles the full reports read.
    assert(links >= 5 && titled >= 1, `only ${links} subagents, ${titled} with a title`);
  },
);

Deno.test(
  needing(
    "factsOf() keeps what a full inspection reports of the corpus's files and a turnlog session, its lookups off",
    CORPUS_MISSING,
  ),
  async () => {
    await using dir = await tempDir();
    const story = await makeStory(dir.path);
    const files: { path: string; format: string }[] = [{ path: story.path, format: "turnlog" }];
    for await (const path of corpusFiles(CORPUS)) {
      files.push({ path, format: (await adapterOfFile(path)).name });
    }
    for (const { path, format } of files) {
      const { size } = await Deno.stat(path);
      const wanted = {
        path,
        source: { format, root: dir.path },
        session: path,
        sessionId: path,
        project: null,
      };
      const facts = await factsOf(wanted, size, undefined);
      const full = await inspectSession(path, { root: dir.path, commandFor: resumeCommand });
      const kept = Object.fromEntries(
        Object.keys(reportColumns(full)).map((key) => [key, facts[key as keyof typeof facts]]),
      );
      assertEquals(kept, reportColumns(full), path);
      if (format === "turnlog") {
        const { created, updated, cwd, title, firstPrompt } = full.session;
        assertEquals(
          [facts.first_at, facts.last_at, facts.cwd, facts.title, facts.first_prompt],
          [created, updated, cwd, title, firstPrompt],
        );
      }
    }
  },
);
