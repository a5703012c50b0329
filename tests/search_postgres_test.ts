/**
 * search over turnlog's store in PostgreSQL: the same hits as over the same sessions in files
 * (line = record number, turn, role, snippet), and commands that name the database without its
 * password. Ignored, saying so, when the PostgreSQL server binaries are not installed.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { fileCluster, freshStore } from "./_postgres_helpers.ts";
import { tempDir } from "./_helpers.ts";
import { importTurnlogFile } from "../src/store/mod.ts";
import { type SearchEvent, searchSessions } from "../src/search/mod.ts";
import { run } from "../cli/search.ts";

const cluster = await fileCluster("search_postgres_test.ts");
const EXAMPLES = fileURLToPath(new URL("../sessions/2026/01/15/", import.meta.url));

async function hits(store: string, terms: string[]) {
  const events: SearchEvent[] = [];
  for await (const event of searchSessions({ terms }, { sources: { store } })) events.push(event);
  return events.flatMap((event) =>
    event.kind === "session"
      ? event.hits.map(({ path: _, ...hit }) => ({ ...hit, started: event.session.started }))
      : []
  );
}

Deno.test({
  name: "searchSessions() finds in a database what it finds in the same sessions' files",
  ignore: cluster === undefined,
  async fn() {
    await using store = await freshStore(cluster!);
    await using dir = await tempDir();
    const day = join(dir.path, "2026", "01", "15");
    await Deno.mkdir(day, { recursive: true });
    for await (const entry of Deno.readDir(EXAMPLES)) {
      await Deno.copyFile(join(EXAMPLES, entry.name), join(day, entry.name));
      await importTurnlogFile(store, join(EXAMPLES, entry.name));
    }
    for (const terms of [["notes.txt"], ["TODO", "release"], ["list the files"]]) {
      const inFiles = await hits(dir.path, terms);
      const inDatabase = await hits(store.url, terms);
      assert(inFiles.length > 0, terms.join(" "));
      const order = (a: { sessionId: string; line: number }, b: typeof a) =>
        a.sessionId.localeCompare(b.sessionId) || a.line - b.line;
      assertEquals(inDatabase.toSorted(order), inFiles.toSorted(order), terms.join(" "));
    }
    let stdout = "";
    let stderr = "";
    const code = await run(["--store", store.url, "notes.txt"], {
      out: (text) => void (stdout += text),
      err: (text) => void (stderr += text),
    });
    assertEquals([code, stderr], [0, ""]);
    assert(!stdout.includes(cluster!.password), "the password is never printed");
    assert(stdout.includes("open:     ./denow task inspect --store postgres://"), stdout);
    assert(stdout.includes("continue: ./denow task resume --store postgres://"), stdout);
  },
});
