/**
 * serve's search box answered from the catalog's full-text index, as the `search` command is:
 * the first search reads the files not in the index yet and the index is built after it, a
 * step at a time; a later search takes the lines appended since; the page is the one serve
 * gives reading every file (`--no-catalog`).
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startServe } from "../testing/serve_process.ts";
import { assert, assertEquals } from "./_assert.ts";
import { attributes, parsePage } from "./_html_helpers.ts";
import { appendLines, catalogHome, goOn } from "./_catalog_home.ts";

/** The sessions a search page lists, each as `id: line line ...` (its hits' lines). */
async function searched(base: string, query: string): Promise<string[]> {
  const response = await fetch(`${base}/search?q=${encodeURIComponent(query)}`);
  assertEquals(response.status, 200);
  const html = await response.text();
  const ids = attributes(parsePage(html), "li[data-session-id]", "data-session-id");
  return ids.map((id) => {
    const item = html.slice(html.indexOf(`data-session-id="${id}"`));
    const lines = [...item.slice(0, item.indexOf("</ul>")).matchAll(/data-line="(\d+)"/g)];
    return `${id}: ${lines.map((match) => match[1]).join(" ")}`;
  });
}

/** How many of the catalog's files have their text in its index, and its lines of text. */
function indexed(catalog: string): { texted: number; lines: number } {
  const db = new DatabaseSync(catalog, { readOnly: true });
  try {
    const count = (sql: string) => Number((db.prepare(sql).get() as { n: number }).n);
    return {
      texted: count("SELECT count(*) AS n FROM files WHERE texted = 1"),
      lines: count("SELECT count(*) AS n FROM lines"),
    };
  } finally {
    db.close();
  }
}

/** Waits until every file's text is in the catalog's index (serve builds it after a search). */
async function whenIndexed(catalog: string, files: number): Promise<void> {
  for (let tries = 0; indexed(catalog).texted < files; tries++) {
    assert(tries < 600, `the index was not built: ${indexed(catalog).texted} of ${files} files`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

Deno.test("serve's search box answers at once, builds the catalog's index after it, then answers from it: the appended lines found, the page the same as reading every file", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, file.lines.length);
  const catalog = join(home.dir, "catalog.sqlite");
  const env = {
    HOME: home.dir,
    TURNLOG_CATALOG: catalog,
    TURNLOG_SESSIONS_DIR: join(home.dir, "sessions"),
  };
  await using serve = await startServe([], { env });
  // serve's start keeps the facts alone: the first search reads the files, then the index is
  // built.
  assertEquals(indexed(catalog).texted, 0);
  const first = await searched(serve.base, "files");
  await whenIndexed(catalog, home.files.length);
  assertEquals(await searched(serve.base, "files"), first);
  {
    await using scan = await startServe(["--no-catalog"], { env });
    assertEquals(await searched(scan.base, "files"), first);
    assert(first.length >= 2, first.join("\n"));
  }

  // A turn more in a Claude Code transcript: found at once, its 2 lines indexed after.
  const before = indexed(catalog).lines;
  await goOn(home.files[0]!, 7);
  const id = home.files[0]!.path.slice(home.files[0]!.path.lastIndexOf("/") + 1, -6);
  const prompt = home.files[0]!.written - 1;
  assertEquals(await searched(serve.base, '"modules again (7)"'), [`${id}: ${prompt}`]);
  await whenIndexed(catalog, home.files.length);
  assertEquals(indexed(catalog).lines, before + 2);
  assertEquals(await searched(serve.base, '"modules again (7)"'), [`${id}: ${prompt}`]);

  // The page is the index's answer: with the file's lines taken out of the index (its row kept
  // as read), the session is no longer found, where reading the file would find it.
  const db = new DatabaseSync(catalog);
  db.exec(
    `DELETE FROM lines WHERE file = (SELECT id FROM files WHERE path = '${home.files[0]!.path}')`,
  );
  db.close();
  assertEquals(await searched(serve.base, '"modules again (7)"'), []);
});
