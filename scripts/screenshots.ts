/**
 * `./denow task screenshots`: the pictures of docs/inspector.md, made again: a Claude Code home
 * written from fixtures (a session with thinking, markdown, tool calls, an edit and a subagent,
 * beside the fixture home's other projects), its static site written by `inspect --html --all`,
 * and the reading view and the site's index photographed in headless Chromium. Nothing of a
 * real user's: the sessions are generated here.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";
import { startBrowser } from "../testing/browser.ts";
import { writeSite } from "../cli/_site.ts";

const DOCS = resolve(import.meta.dirname ?? ".", "..", "docs");
const SESSION = "5c1e0a77-0000-4000-8000-00000000000a";
const AGENT = "a7c3e91";

/** A session as people have them: a question, thinking, reads, an edit, a subagent, an answer. */
async function writeShopSession(projects: string): Promise<void> {
  const dir = join(projects, "-work-shop");
  await Deno.mkdir(join(dir, SESSION, "subagents"), { recursive: true });
  const start = Date.UTC(2026, 2, 14, 9, 30, 0);
  const b = new ClaudeTranscriptBuilder({ sessionId: SESSION, cwd: "/work/shop" }, start);
  b.user("The checkout total is off by a cent for some carts. Can you find out why?", {
    parent: null,
  });
  const read = b.assistant([
    {
      thinking:
        "A one-cent error smells like **floating point**: prices summed as floats, then rounded. I should read the cart's total first.",
    },
    { text: "Let me look at how the cart adds up its prices." },
    { toolUse: { id: "toolu_read", name: "Read", input: { file_path: "/work/shop/cart.ts" } } },
  ], { stop: "tool_use" });
  b.toolResult(
    "toolu_read",
    "export function total(items: Item[]): number {\n  return Math.round(items.reduce((sum, i) => sum + i.price * i.qty, 0) * 100) / 100;\n}\n",
    { parent: read.at(-1)! },
  );
  const task = b.assistant([
    {
      toolUse: {
        id: "toolu_task",
        name: "Task",
        input: {
          description: "Find every sum of prices",
          prompt: "Find every place that sums prices",
        },
      },
    },
  ], { stop: "tool_use" });
  b.progress({ type: "agent_progress", agentId: AGENT }, { parent: task.at(-1)! });
  b.toolResult("toolu_task", [{ type: "text", text: "Two places: cart.ts and invoice.ts." }], {
    parent: task.at(-1)!,
    result: { status: "completed", agentId: AGENT, totalToolUseCount: 1 },
  });
  const edit = b.assistant([
    { text: "Found it: prices are summed as floats. Counting in cents fixes it." },
    {
      toolUse: {
        id: "toolu_edit",
        name: "Edit",
        input: {
          file_path: "/work/shop/cart.ts",
          old_string:
            "  return Math.round(items.reduce((sum, i) => sum + i.price * i.qty, 0) * 100) / 100;\n",
          new_string:
            "  const cents = items.reduce((sum, i) => sum + Math.round(i.price * 100) * i.qty, 0);\n  return cents / 100;\n",
        },
      },
    },
  ], { stop: "tool_use" });
  b.toolResult("toolu_edit", "The file /work/shop/cart.ts has been updated.", {
    parent: edit.at(-1)!,
  });
  b.assistant([{
    text:
      "The total was off because **prices were added as floating-point numbers** (`0.1 + 0.2` is `0.30000000000000004`), and rounding at the end could not always undo it.\n\nWhat changed in `cart.ts`:\n\n1. each price becomes whole cents first,\n2. the cents are added as integers,\n3. the total is divided by 100 once.\n\n`invoice.ts` sums prices the same way; want me to fix it too?",
  }], { stop: "end_turn" });
  const agent = new ClaudeTranscriptBuilder(
    { sessionId: SESSION, cwd: "/work/shop", sidechain: true, agentId: AGENT },
    start + 20_000,
  );
  agent.user("Find every place that sums prices", { parent: null });
  const grep = agent.assistant([
    {
      toolUse: {
        id: "toolu_grep",
        name: "Grep",
        input: { pattern: "price \\* ", path: "/work/shop" },
      },
    },
  ]);
  agent.toolResult("toolu_grep", "cart.ts:2\ninvoice.ts:14", { parent: grep.at(-1)! });
  agent.assistant([{ text: "Two places: `cart.ts` and `invoice.ts`." }], { stop: "end_turn" });
  await Deno.writeTextFile(join(dir, `${SESSION}.jsonl`), b.text());
  await Deno.writeTextFile(join(dir, SESSION, "subagents", `agent-${AGENT}.jsonl`), agent.text());
}

if (import.meta.main) {
  const work = await Deno.makeTempDir({ prefix: "turnlog-screenshots-" });
  try {
    const home = await writeClaudeHome(join(work, "claude"));
    await writeShopSession(home.projects);
    const site = join(work, "site");
    await writeSite(home.projects, { out: site });
    await using browser = await startBrowser();
    const shots = [
      { page: join(site, "index.html"), file: "site-index.png", height: 640 },
      { page: join(site, "sessions", `${SESSION}.html`), file: "reading-view.png", height: 1000 },
    ];
    for (const shot of shots) {
      await using opened = await browser.open(pathToFileURL(shot.page).href, {
        viewport: { width: 900, height: shot.height },
      });
      // The reader's view of it: the thinking and the edit opened, as a reader would.
      await opened.page.evaluate(`for (const d of document.querySelectorAll(
        "#reading details.thinking, #reading details.tool[data-tool-call='toolu_edit']")) d.open = true`);
      // The conversation from its view links on (the header above it is the record view's too).
      await opened.page.evaluate(`document.getElementById("views")?.scrollIntoView()`);
      await opened.page.screenshot({ path: join(DOCS, shot.file) });
      console.log(`wrote docs/${shot.file}`);
    }
  } finally {
    await Deno.remove(work, { recursive: true });
  }
}
