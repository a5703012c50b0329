/**
 * serve stays responsive (issue 39): a page's diffs are bounded by a time budget, the page
 * renders in slices, and a request sent while a heavy page renders is answered first.
 *
 * @module
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { parsePage, texts } from "./_html_helpers.ts";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { createSessionBrowserHandler } from "../src/server/mod.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

/** 1,400 short lines, `prefix` on each: two such texts differ on every line. */
const block = (prefix: string) =>
  Array.from({ length: 1400 }, (_, i) => `${prefix}${i}`).join("\n") + "\n";

/**
 * A Claude Code session of one turn: a small Edit, then `heavy` Edits each replacing 1,400
 * short lines with 1,400 others (7 KB a side: under the page's 20,000-character limit).
 */
function heavySession(heavy: number): string {
  const b = new ClaudeTranscriptBuilder();
  b.user("Rewrite the tables");
  const edit = (id: string, before: string, after: string) => {
    const [call] = b.assistant([{
      toolUse: {
        id,
        name: "Edit",
        input: { file_path: `/work/project/${id}.ts`, old_string: before, new_string: after },
      },
    }], { stop: "tool_use" });
    b.toolResult(id, "The file was updated", { parent: call! });
  };
  edit("toolu_small", "a\nb\nc\n", "a\nB\nc\n");
  for (let i = 0; i < heavy; i++) edit(`toolu_${i}`, block("a"), block("b"));
  b.assistant([{ text: "Done." }], { stop: "end_turn" });
  return b.lines.join("\n") + "\n";
}

Deno.test("renderSessionPage() diffs within its budget and shows the rest as removed then added, with a note", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, heavySession(12));
  const report = await inspectSession(path, SESSION_PAGE_INSPECTION);
  const page = parsePage(renderSessionPage(report));
  const small = page.querySelector('[data-call-id="toolu_small"] .diff')!;
  assertEquals([texts(small, "del"), texts(small, "ins"), texts(small, ".ctx")], [
    ["b"],
    ["B"],
    ["a", "c"],
  ]);
  assertEquals(small.querySelectorAll("[data-undiffed]").length, 0);
  for (let i = 0; i < 12; i++) {
    const diff = page.querySelector(`[data-call-id="toolu_${i}"] .diff`)!;
    const note = diff.querySelector("p.note[data-undiffed]");
    assert(note !== null, `edit ${i} has no note`);
    assert(["different", "budget"].includes(note.getAttribute("data-undiffed")!));
    assert(note.textContent!.startsWith("Shown as removed then added lines, not diffed: "));
    // Every line is there: the removed text whole, then the added, counted by lines.
    assertEquals(texts(diff, "del"), [block("a").slice(0, -1)]);
    assertEquals(texts(diff, "ins"), [block("b").slice(0, -1)]);
    assertEquals(texts(diff, "summary .size"), ["+1400 −1400", "(2,800 lines)"]);
  }
});

Deno.test("createSessionBrowserHandler() answers a request sent while a heavy page renders before that page ends", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "projects", "-work-project");
  await Deno.mkdir(project, { recursive: true });
  await Deno.writeTextFile(join(project, `${CLAUDE_SESSION_ID}.jsonl`), heavySession(40));
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: join(dir.path, "projects") }],
  });
  await using server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const done: string[] = [];
  const heavy = fetch(`${origin}/sessions/${CLAUDE_SESSION_ID}`).then(async (response) => {
    const text = await response.text();
    done.push("heavy");
    return text;
  });
  // The probe goes out once the heavy page has begun (its head is on the way).
  await new Promise((resolve) => setTimeout(resolve, 20));
  const probe = await fetch(`${origin}/favicon.ico`);
  await probe.body?.cancel();
  done.push("probe");
  const page = await heavy;
  assertEquals(probe.status, 204);
  assertEquals(done, ["probe", "heavy"]);
  // Each edit once in each view, diffed once.
  assertEquals(parsePage(page).querySelectorAll("#turns p.note[data-undiffed]").length, 40);
  assertEquals(parsePage(page).querySelectorAll("#reading p.note[data-undiffed]").length, 40);
});
