/**
 * The browser's usage page (`GET /usage`): tokens and cost per day, project and model over the
 * store and the homes the browser lists, a Plot chart per day and per project, the models
 * without a price said once; linked from the list.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { attributes, parsePage, texts } from "./_html_helpers.ts";
import { createSessionBrowserHandler } from "../src/server/mod.ts";
import { Catalog } from "../src/catalog/mod.ts";
import { claudeCodeAdapter } from "../src/formats/claude_code/mod.ts";
import { CLAUDE_SESSION_ID, ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

async function claudeProjects(base: string): Promise<string> {
  const projects = join(base, "projects");
  await Deno.mkdir(join(projects, "-work-project"), { recursive: true });
  const b = new ClaudeTranscriptBuilder();
  b.user("hi");
  b.assistant([{ text: "a" }], { usage: { input: 10, output: 20 } });
  b.set({ model: "claude-nobody-knows-9" });
  b.assistant([{ text: "b" }], { usage: { input: 1, output: 2 } });
  await Deno.writeTextFile(join(projects, "-work-project", `${CLAUDE_SESSION_ID}.jsonl`), b.text());
  return projects;
}

Deno.test("createSessionBrowserHandler() serves /usage: per day, project and model, charts, the unpriced model once, linked from the list", async () => {
  await using dir = await tempDir();
  const projects = await claudeProjects(dir.path);
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: projects }],
  });
  const response = await handler(new Request("http://127.0.0.1/usage"));
  assertEquals(response.status, 200);
  assert(response.headers.get("content-security-policy")?.startsWith("default-src 'none'"));
  const html = await response.text();
  const page = parsePage(html);
  assertEquals(texts(page, "main h2"), ["Per day", "Per project", "Per model"]);
  assertEquals(page.querySelectorAll("section#per-day svg").length, 1);
  assertEquals(page.querySelectorAll("section#per-project svg").length, 1);
  // 10 + 20 + 1100 cached, and 1 + 2 + 1100: the builder's cache tokens on each response.
  assertEquals(texts(page, "#per-model tbody td:first-child"), [
    "claude-nobody-knows-9",
    "claude-opus-4-5-20251101",
  ]);
  assertEquals(texts(page, "#per-model tbody tr:first-child td:last-child"), ["unpriced"]);
  assertEquals(texts(page, "#per-day tbody td:first-child"), ["2026-01-23"]);
  assertEquals(texts(page, "#per-project tbody td:first-child"), ["/work/project"]);
  assertEquals(texts(page, "#per-model tfoot th:nth-child(6)"), ["2,233"]);
  assertEquals(texts(page, "header .note.warn"), [
    "No price known (not counted as $0): claude-nobody-knows-9",
  ]);
  assertEquals(html.includes(' style="'), false, "no style attribute: the policy refuses them");
  const list = parsePage(await (await handler(new Request("http://127.0.0.1/"))).text());
  assertEquals(attributes(list, "header a[href='/usage']", "href"), ["/usage"]);
  // From the catalog (serve's default): the same tables.
  using catalog = Catalog.open({ path: join(dir.path, "catalog.sqlite") });
  const cataloged = createSessionBrowserHandler({
    sessionsDir: join(dir.path, "sessions"),
    homes: [{ adapter: claudeCodeAdapter, root: projects }],
    catalog,
  });
  for (let run = 0; run < 2; run++) {
    const again = parsePage(
      await (await cataloged(new Request("http://127.0.0.1/usage"))).text(),
    );
    assertEquals(texts(again, "main table"), texts(page, "main table"));
  }
});
