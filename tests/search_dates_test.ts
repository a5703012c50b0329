/**
 * `search --since/--until` go by the sessions' own dates (the catalog's first and last), not
 * their files' times: a home copied today (every file written now) still finds a session by
 * when it was held. Without the catalog, `--since` falls back to the files' last writes and
 * `--until` to the start each session's head names.
 */
import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { run } from "../cli/search.ts";
import { CATALOG_ENV } from "../src/catalog/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";

const OLD = "7acd37a8-0000-4000-8000-0000000000a1";
const NEW = "7acd37a8-0000-4000-8000-0000000000b2";

/** Two Claude Code sessions, held in June 2025 and in November 2026, their files written now. */
async function copiedHome(dir: string): Promise<string> {
  const projects = join(dir, "projects");
  const project = join(projects, "-work-p");
  await Deno.mkdir(project, { recursive: true });
  const sessions: [string, number][] = [
    [OLD, Date.UTC(2025, 5, 1, 10)],
    [NEW, Date.UTC(2026, 10, 20, 10)],
  ];
  for (const [id, start] of sessions) {
    const b = new ClaudeTranscriptBuilder({ sessionId: id }, start);
    b.user("rename the tokenizer");
    b.assistant([{ text: "The tokenizer is renamed." }], { stop: "end_turn" });
    await Deno.writeTextFile(join(project, `${id}.jsonl`), b.lines.join("\n") + "\n");
  }
  return projects;
}

/** The ids `search` finds (its `--json` records' sessions), with its exit code. */
async function found(args: string[]): Promise<{ code: number; ids: string[] }> {
  let out = "";
  const code = await run([...args, "--json", "tokenizer"], {
    out: (text) => void (out += text),
    err: () => {},
  });
  const ids = out.split("\n").filter((line) => line !== "")
    .map((line) => JSON.parse(line).sessionId as string);
  return { code, ids: [...new Set(ids)].sort() };
}

Deno.test("search --since and --until go by the sessions' own dates from the catalog, not their files' times", async () => {
  await using dir = await tempDir();
  const projects = await copiedHome(dir.path);
  const before = Deno.env.get(CATALOG_ENV);
  Deno.env.set(CATALOG_ENV, join(dir.path, "catalog.sqlite"));
  try {
    const home = ["--sessions-dir", projects];
    assertEquals(await found([...home, "--since", "2026-01-01"]), { code: 0, ids: [NEW] });
    assertEquals(await found([...home, "--until", "2025-06-01"]), { code: 0, ids: [OLD] });
    assertEquals(
      await found([...home, "--since", "2025-06-01T10:00:00Z", "--until", "2025-12-31"]),
      { code: 0, ids: [OLD] },
    );
    assertEquals(await found([...home, "--until", "2025-05-31"]), { code: 1, ids: [] });
    assertEquals(await found([...home]), { code: 0, ids: [OLD, NEW] });
    // Without the catalog: --since by the files' last writes (both written now), --until by
    // the start each head names.
    const scan = [...home, "--no-catalog"];
    assertEquals(await found([...scan, "--since", "2026-01-01"]), { code: 0, ids: [OLD, NEW] });
    assertEquals(await found([...scan, "--until", "2025-06-01"]), { code: 0, ids: [OLD] });
  } finally {
    if (before === undefined) Deno.env.delete(CATALOG_ENV);
    else Deno.env.set(CATALOG_ENV, before);
  }
});

Deno.test("search --until that is not a date says so (exit 2)", async () => {
  let err = "";
  const code = await run(["--until", "soon", "x"], { out: () => {}, err: (t) => void (err += t) });
  assertEquals([code, err.split("\n")[0]], [
    2,
    'turnlog search: Invalid --until "soon": expected a date like 2026-02-23',
  ]);
});
