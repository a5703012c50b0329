/**
 * The session page's reading view: the conversation as people read it, every turn the
 * inspector counts, each message, tool call and readable thinking of the file once, and the
 * record view one link away, on every format's fixture and on the corpus's real files.
 *
 * @module
 */
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { attributes, type DomNode, parsePage, texts } from "./_html_helpers.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { type InspectReport, inspectSession } from "../src/inspect/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { join } from "node:path";

/** What the reading view must hold of a report: each turn, message, call and thought once. */
function assertReads(report: InspectReport, page: DomNode, name: string): void {
  const reading = page.querySelector("#reading")!;
  assertEquals(
    attributes(reading, ":scope > [data-reading-turn]", "data-reading-turn"),
    report.turns.map((turn) => String(turn.index)),
    name,
  );
  const entries = report.turns.flatMap((turn) => turn.entries ?? []);
  const said = entries.filter((e) => e.kind === "message" && e.role !== "system").length;
  const own = (selector: string) =>
    [...reading.querySelectorAll(selector)].filter((node) =>
      node.closest("details.subagent") === null
    );
  assertStrictEquals(own(".say.user, .say.assistant").length, said, `${name}: messages`);
  assertEquals(
    own("details.tool[data-tool-call]").map((node) => node.getAttribute("data-tool-call")),
    entries.flatMap((e) => e.kind === "function_call" ? [e.callId] : []),
    `${name}: calls`,
  );
  const thoughts = entries.filter((e) => e.kind === "ignored" && e.text !== undefined).length;
  assertStrictEquals(own("details.thinking").length, thoughts, `${name}: thinking`);
  // The record view is there too, one link away, with every turn.
  assertStrictEquals(page.querySelectorAll("#records [data-turn]").length, report.turns.length);
  assertEquals(attributes(page, "#views a[data-view]", "href"), ["#reading", "#records"]);
  // Nothing of the record view's ids is repeated by the reading view.
  assertStrictEquals(reading.querySelectorAll("[id^='line-'], [data-call-id]").length, 0);
}

Deno.test("renderSessionPage() reads a Claude Code turn as people do: prompt, thinking, answer in markdown, each call folded with its result", async () => {
  await using dir = await tempDir();
  const b = new ClaudeTranscriptBuilder();
  b.user("List the **files**");
  const [call] = b.assistant([
    { thinking: "The user wants the files; `ls` shows them." },
    { text: "I'll look." },
    { toolUse: { id: "toolu_ls", name: "Bash", input: { command: "ls -la", description: "x" } } },
  ], { stop: "tool_use" });
  b.toolResult("toolu_ls", "a.txt\nb.txt", { parent: call! });
  // Thinking kept only signed (no text): said, not shown.
  b.assistant([{ thinking: "" }, { text: "Two files: **a.txt** and `b.txt`." }], {
    stop: "end_turn",
  });
  const path = join(dir.path, "7acd37a8-0000-4000-8000-000000000001.jsonl");
  await Deno.writeTextFile(path, b.lines.join("\n") + "\n");
  const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
  const page = parsePage(renderSessionPage(report));
  assertReads(report, page, "built");
  const turn = page.querySelector("[data-reading-turn='1']")!;
  assertEquals(texts(turn, ".say.user .text"), ["List the **files**"]);
  assertEquals(
    [...turn.querySelectorAll(".say.assistant .md")].map((node) =>
      node.querySelector("strong")?.textContent ?? null
    ),
    [null, "a.txt"],
  );
  assertEquals(texts(turn, "details.thinking .md"), [
    "The user wants the files; ls shows them.\n",
  ]);
  assertEquals(texts(turn, ".thinking-note"), [
    "Thinking: kept in the file signed or encrypted, not readable.",
  ]);
  const tool = turn.querySelector("details.tool[data-tool-call='toolu_ls']")!;
  assertStrictEquals(tool.hasAttribute("open"), false);
  assertEquals(texts(tool, "summary .tname, summary .preview"), ["Bash", "ls -la"]);
  assertEquals(texts(tool, ".result pre"), ["a.txt\nb.txt"]);
});

for (const [format, fixture] of Object.entries(FIXTURES)) {
  Deno.test(`renderSessionPage() of a ${format} session: the reading view holds every turn, message, call and thought`, async () => {
    await using dir = await tempDir();
    const { path } = await fixture.write(dir.path);
    const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
    assert(report.turns.length > 0);
    assertReads(report, parsePage(renderSessionPage(report)), format);
  });
}

Deno.test({
  ...needing(
    "renderSessionPage() of every corpus file: the reading view holds every turn, message, call and readable thought",
    CORPUS_MISSING,
  ),
  async fn() {
    let files = 0;
    let thoughts = 0;
    for await (const path of corpusFiles(CORPUS)) {
      const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
      const page = parsePage(renderSessionPage(report, { maxPageBytes: 1e9 }));
      assertReads(report, page, path);
      thoughts += page.querySelectorAll("#reading details.thinking").length;
      files++;
    }
    assert(files > 40, `${files} corpus files`);
    // Claude Code's real files keep their thinking readable: the page shows it.
    assert(thoughts > 10, `${thoughts} thoughts shown`);
  },
});

Deno.test("renderSessionPage() of a Gemini CLI session folds its thoughts: each subject in bold, then its description", async () => {
  await using dir = await tempDir();
  const { path } = await FIXTURES.gemini!.write(dir.path);
  const page = parsePage(renderSessionPage(await inspectSession(path, SESSION_PAGE_INSPECTION)));
  assertEquals(texts(page, "#reading details.thinking .md strong"), ["Plan"]);
  assertEquals(texts(page, "#reading details.thinking .md"), ["Plan\nRead first.\n"]);
});
