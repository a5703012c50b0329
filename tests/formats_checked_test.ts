/**
 * The check a reader makes on the way (`ForeignFacts.checked`): after a whole read of a file
 * without bad lines, the findings that come with the facts are exactly what the adapter's own
 * check (which reads the file itself) finds, on every real file of the shared corpus and on
 * Gemini sessions of our builder; a read asked for no check brings none.
 */
import { join, relative } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { collectSession, type ForeignFormat, validateSessionFile } from "../src/formats/mod.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { geminiBusySession, geminiToolSession } from "../testing/formats/gemini_builder.ts";

const formatOf = (path: string): ForeignFormat =>
  relative(CORPUS, path).startsWith("codex/") ? "codex" : "claude-code";

/** Whether the read's findings are the check's; false when the read made none (a bad line). */
async function sameAsCheck(path: string, format: ForeignFormat): Promise<boolean> {
  const fresh = await validateSessionFile(path, format);
  const { facts } = await collectSession(path, format);
  if (facts.checked === undefined) return false;
  assertEquals(facts.checked, fresh.findings, path);
  return true;
}

Deno.test({
  ...needing(
    "collectSession() brings the check's findings with the facts, on every corpus file",
    CORPUS_MISSING,
  ),
  fn: async () => {
    let files = 0;
    let compared = 0;
    for await (const path of corpusFiles(CORPUS)) {
      files++;
      if (await sameAsCheck(path, formatOf(path))) compared++;
    }
    // The corpus was there, and most files were compared (those with a bad line are not).
    assert(files > 40, `${files} corpus files`);
    assert(compared > files / 2, `${compared} of ${files} files compared`);
  },
});

Deno.test("collectSession() brings Gemini's check with its facts, findings and all", async () => {
  await using dir = await tempDir();
  const damaged = geminiToolSession();
  // A call's answer lost: the check finds the call unanswered.
  damaged.lines.splice(damaged.lines.findIndex((line) => line.includes("functionResponse")), 1);
  const texts = [geminiToolSession().text(), geminiBusySession().text(), damaged.text()];
  let findings = 0;
  for (const [i, text] of texts.entries()) {
    const path = join(dir.path, `session-2026-12-01T10-0${i}-5a7e0c1d.jsonl`);
    await Deno.writeTextFile(path, text);
    assert(await sameAsCheck(path, "gemini"), path);
    findings += (await validateSessionFile(path, "gemini")).findings.length;
  }
  assert(findings > 0, "no session has a finding: only empty lists compared");
});

Deno.test("collectSession() with check: false brings no findings", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "session-2026-12-01T10-00-5a7e0c1d.jsonl");
  await Deno.writeTextFile(path, geminiToolSession().text());
  const { facts } = await collectSession(path, "gemini", { check: false });
  assertEquals(facts.checked, undefined);
});
