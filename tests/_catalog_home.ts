/**
 * A small home for the catalog's tests: two Claude Code transcripts and a Codex rollout
 * written line by line as their tools would (appends, a torn tail, a repair's atomic rewrite,
 * a rewrite in place at the same size, a deletion), an archive beside them, and a dump of what a catalog answers for it.
 */
import { join } from "node:path";
import type { DatabaseSync } from "node:sqlite";
import { archivedViews, archiveSessions, archiveSources } from "../src/archive/mod.ts";
import { type Catalog, type CatalogSource, ftsQuery } from "../src/catalog/mod.ts";
import { compileQuery } from "../src/search/mod.ts";
import { claudeBasic, claudeForks } from "../testing/formats/claude_fixtures.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";

/** One session file of the home, and the lines its tool writes, in order. */
export interface HomeFile {
  path: string;
  lines: string[];
  /** Lines written whole so far. */
  written: number;
  /** Bytes of the next line written without its end (a torn tail), 0 when none. */
  torn: number;
}

/** The home: its folder, its files, its sources and its archive. */
export interface CatalogHome extends AsyncDisposable {
  dir: string;
  files: HomeFile[];
  env: { get(name: string): string | undefined };
  archive: string;
  /** The sources a command reads: both homes and the archive's view. */
  sources(): Promise<CatalogSource[]>;
}

/** Words the home's conversations hold (and one they do not). */
export const WORDS = ["files", "tests", "hello", "modules", "passing", "b.txt", "nowhere"];

/** Makes the home, its files not yet written. */
export async function catalogHome(): Promise<CatalogHome> {
  const dir = await Deno.makeTempDir({ prefix: "turnlog-catalog-test-" });
  const project = join(dir, ".claude", "projects", "-work-p");
  const rollouts = join(dir, ".codex", "sessions", "2026", "02", "23");
  await Deno.mkdir(project, { recursive: true });
  await Deno.mkdir(rollouts, { recursive: true });
  const split = (text: string) => text.split("\n").filter((line) => line !== "");
  const files: HomeFile[] = [
    {
      path: join(project, "7acd37a8-0000-4000-8000-000000000001.jsonl"),
      lines: split(claudeBasic()),
      written: 0,
      torn: 0,
    },
    {
      path: join(project, "5f0e1d2c-0000-4000-8000-000000000002.jsonl"),
      lines: split(claudeForks()),
      written: 0,
      torn: 0,
    },
    {
      path: join(
        rollouts,
        "rollout-2026-02-23T12-40-23-019c8a4c-0000-7000-8000-000000000001.jsonl",
      ),
      lines: split(codexTurnIds()),
      written: 0,
      torn: 0,
    },
  ];
  const env = { get: (name: string) => (name === "HOME" ? dir : undefined) };
  const archive = join(dir, "archive");
  const homes = (): CatalogSource[] => [
    { format: "claude-code", root: join(dir, ".claude", "projects") },
    { format: "codex", root: join(dir, ".codex", "sessions") },
  ];
  return {
    dir,
    files,
    env,
    archive,
    async sources() {
      const views = await archivedViews(archive);
      return [...homes(), ...views.map((view) => ({ ...view, archived: true }))];
    },
    [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Appends `count` lines to a file (the rest of a torn line first), as its tool does. */
export async function appendLines(file: HomeFile, count: number): Promise<void> {
  let text = "";
  if (file.torn > 0 && file.written < file.lines.length) {
    text += `${file.lines[file.written]!.slice(file.torn)}\n`;
    file.written++;
    file.torn = 0;
  }
  for (let i = 0; i < count && file.written < file.lines.length; i++) {
    text += `${file.lines[file.written++]}\n`;
  }
  if (text !== "") await Deno.writeTextFile(file.path, text, { append: true });
}

/** The rest of a torn line, when one was written; then the lines written are whole. */
async function mendTorn(file: HomeFile): Promise<void> {
  if (file.torn > 0) await appendLines(file, 0);
}

/** Writes `lines` next (after the lines written), as its tool appends them. */
async function insertNext(file: HomeFile, lines: string[]): Promise<void> {
  file.lines.splice(file.written, 0, ...lines);
  await appendLines(file, lines.length);
}

/**
 * A turn more, as the session goes on: a prompt and its answer (Claude Code: new ids, the
 * prompt's parent the last line written; Codex: a turn with a call, its output and tokens).
 */
export async function goOn(file: HomeFile, n: number): Promise<void> {
  await mendTorn(file);
  if (file.path.includes(".codex")) {
    const turn = `g${n}-${file.written}`;
    const text = new CodexRolloutBuilder(Date.UTC(2026, 1, 23, 13, 0, n))
      .meta()
      .taskStarted(turn)
      .prompt(`Run the tests again (${n})`)
      .turnContext({ turnId: turn, model: n % 2 ? "gpt-5.5" : "gpt-5.4", approval: "never" })
      .call(`call-${turn}`, "exec_command", '{"cmd":"deno test"}')
      .output(`call-${turn}`, "Process exited with code 0\nOutput:\nok, tests passing")
      .answer("The tests are passing.")
      .tokens(1000 + n, 20 + n, 500)
      .taskComplete(turn)
      .text();
    await insertNext(file, text.split("\n").filter((line) => line !== "").slice(1));
    return;
  }
  const written = file.lines.slice(0, file.written);
  // A line that is not JSON (a blank one a test wrote) names none.
  const field = (name: string, lines: string[]) =>
    lines.map((line) => line.trim() === "" ? undefined : JSON.parse(line)[name])
      .find((value) => typeof value === "string") ?? null;
  const leaf = field("uuid", written.slice(-8).reverse());
  const sessionId = field("sessionId", written.slice(0, 8));
  const prompt = crypto.randomUUID(), answer = crypto.randomUUID();
  const base = { sessionId, cwd: "/work/p", version: "2.1.0", isSidechain: false };
  await insertNext(file, [
    JSON.stringify({
      ...base,
      type: "user",
      uuid: prompt,
      parentUuid: leaf,
      timestamp: `2026-01-23T18:00:${String(n % 60).padStart(2, "0")}.000Z`,
      message: { role: "user", content: `Check the modules again (${n})` },
    }),
    JSON.stringify({
      ...base,
      type: "assistant",
      uuid: answer,
      parentUuid: prompt,
      timestamp: `2026-01-23T18:00:${String(n % 60).padStart(2, "0")}.500Z`,
      message: {
        id: `msg_${answer}`,
        role: "assistant",
        model: n % 2 ? "claude-sonnet-4-20250514" : "claude-opus-4-20250514",
        content: [{ type: "text", text: "The modules are fine, tests passing." }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10 + n, output_tokens: 5 + n },
      },
    }),
  ]);
}

/**
 * A copy of a line written before, appended: in a Claude Code transcript its parent is an
 * earlier line (a rewind, a fork); in a Codex rollout a line said again.
 */
export async function repeatLine(file: HomeFile, at: number): Promise<void> {
  await mendTorn(file);
  if (file.written === 0) return;
  await insertNext(file, [file.lines[at % file.written]!]);
}

/** Writes the first half of the next line, without its end. */
export async function tearLine(file: HomeFile): Promise<void> {
  const next = file.lines[file.written];
  if (file.torn > 0 || next === undefined) return;
  file.torn = Math.max(1, Math.floor(next.length / 2));
  await Deno.writeTextFile(file.path, next.slice(0, file.torn), { append: true });
}

/**
 * A repair's rewrite: the file written again whole (a temp file renamed over it) without its
 * torn tail and without the written line at `drop`; the tool then goes on after it.
 */
export async function rewriteFile(file: HomeFile, drop: number): Promise<void> {
  if (file.written === 0) return;
  const at = drop % file.written;
  file.lines.splice(at, 1);
  file.written--;
  file.torn = 0;
  const text = file.lines.slice(0, file.written).map((line) => `${line}\n`).join("");
  const temp = `${file.path}.tmp`;
  await Deno.writeTextFile(temp, text);
  await Deno.rename(temp, file.path);
}

/** Words of the home's conversations, each with another of its length it is swapped with. */
const SWAPS: Record<string, string> = {
  files: "fixes",
  fixes: "files",
  hello: "jello",
  jello: "hello",
  tests: "rests",
  rests: "tests",
};
const SWAPPED = new RegExp(Object.keys(SWAPS).join("|"));

/**
 * Gemini CLI's way: the file written again in place (the same inode, truncated and written) at
 * the same size, one word of the first written line that holds one swapped for another of its
 * length (`files` and `fixes`: the farther from the end, the more bytes the tail hash does not
 * cover); a torn tail kept as it is. True when a line held one.
 */
export async function editInPlace(file: HomeFile): Promise<boolean> {
  for (let i = 0; i < file.written; i++) {
    const line = file.lines[i]!;
    if (!SWAPPED.test(line)) continue;
    file.lines[i] = line.replace(SWAPPED, (word) => SWAPS[word]!);
    let text = file.lines.slice(0, file.written).map((written) => `${written}\n`).join("");
    if (file.torn > 0) text += file.lines[file.written]!.slice(0, file.torn);
    await Deno.writeTextFile(file.path, text);
    return true;
  }
  return false;
}

/** Deletes a file; its tool starts it again from its first line. */
export async function deleteFile(file: HomeFile): Promise<void> {
  await Deno.remove(file.path).catch(() => {});
  file.written = 0;
  file.torn = 0;
}

/** Runs the archive over both homes. */
export async function archiveHome(home: CatalogHome): Promise<void> {
  await archiveSessions({
    to: home.archive,
    sources: archiveSources({ env: home.env, store: join(home.dir, "none") }),
  });
}

/**
 * What a catalog answers for the sources: its sessions, every indexed line with its place,
 * and the lines the full-text index finds for each of {@linkcode WORDS} (as the search asks it).
 */
export function catalogAnswers(catalog: Catalog, sources: readonly CatalogSource[]) {
  const db: DatabaseSync = catalog.db;
  const roots = new Set(sources.map((source) => source.root));
  const sessions = catalog.sessions(sources).sort((a, b) => a.path.localeCompare(b.path));
  const lines = (db.prepare(
    `SELECT f.root, f.path, l.line, l.turn, l.start, l.end, l.roles FROM lines l
     JOIN files f ON f.id = l.file WHERE f.deleted = 0 ORDER BY f.path, l.line`,
  ).all() as { root: string; path: string; line: number }[]).filter((row) => roots.has(row.root));
  const found = Object.fromEntries(WORDS.map((word) => [
    word,
    (db.prepare(
      `SELECT f.root, f.path, l.line FROM text JOIN lines l ON l.id = text.rowid
       JOIN files f ON f.id = l.file WHERE text MATCH ? AND f.deleted = 0
       ORDER BY f.path, l.line`,
    ).all(ftsQuery(compileQuery({ terms: [word] }))!) as {
      root: string;
      path: string;
      line: number;
    }[]).filter((row) => roots.has(row.root)),
  ]));
  return { sessions, lines, found };
}

/** The `JSON.parse` calls `work` makes in this thread (a worker's are its own), and its result. */
export async function countParses<T>(work: () => Promise<T>): Promise<[T, number]> {
  const parse = JSON.parse;
  let parsed = 0;
  JSON.parse = (...args: Parameters<typeof JSON.parse>) => (parsed++, parse(...args));
  try {
    return [await work(), parsed];
  } finally {
    JSON.parse = parse;
  }
}
