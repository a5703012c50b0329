/**
 * The lean start (issues 42 and 43): a listing answered from a catalog already up to date loads
 * no reader, no inspector, no store and no npm package before it answers; the homes it names
 * are the adapters' own; and what it lists is what a read of the files lists.
 *
 * @module
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { CORPUS, CORPUS_MISSING } from "./_corpus.ts";
import { ADAPTERS } from "../src/formats/mod.ts";
import { TOOL_HOMES } from "../src/formats/homes.ts";
import { TOOL_STARTS } from "../src/formats/_tool_starts.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A static import or export: whether it is type-only (`import type`), and its specifier. */
const STATIC = /^(?:import|export)\b(\s+type\b)?[^;]*?\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"/gm;

/** A file's code without its comments (doc comments hold imports that never run). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
}

/** An `import("...")` of a literal: Deno reads its module at start too (not a `typeof import`). */
const DYNAMIC = /(?<!typeof\s*)\bimport\(\s*"([^"]+)"\s*\)/g;

/**
 * What a process that runs `entry` reads before its first line runs: the files (relative to
 * the repository) and bare specifiers its static imports reach, and those an `import()` of a
 * literal names (Deno reads and analyses them at start, run or not); type-only imports and
 * modules imported late (src/_late.ts) left out.
 */
async function loadedAtStart(entry: string): Promise<Set<string>> {
  const loaded = new Set<string>();
  const next = [resolve(ROOT, entry)];
  for (let path = next.pop(); path !== undefined; path = next.pop()) {
    const name = path.slice(ROOT.length + 1);
    if (loaded.has(name)) continue;
    loaded.add(name);
    if (!path.endsWith(".ts")) continue;
    const text = code(await Deno.readTextFile(path));
    for (const m of text.matchAll(STATIC)) {
      const specifier = m[2] ?? m[3]!;
      if (m[1] !== undefined) continue;
      if (specifier.startsWith(".")) next.push(resolve(dirname(path), specifier));
      else loaded.add(specifier);
    }
    for (const [, specifier] of text.matchAll(DYNAMIC)) {
      if (specifier!.startsWith(".")) next.push(resolve(dirname(path), specifier!));
      else loaded.add(specifier!);
    }
  }
  return loaded;
}

/**
 * What the lean start must not load: another tool's reader, and what reads a file whole.
 * turnlog's own adapter loads (the homes name it, for the store a search reads by default).
 */
function heavy(loaded: Set<string>, allowed: readonly string[] = []): string[] {
  return [...loaded].filter((name) => !allowed.includes(name)).filter((name) =>
    (/^src\/formats\/[^/]+\/(_reader|_adapter|_check|_repair|_writer)\.ts$/.test(name) &&
      !name.startsWith("src/formats/turnlog/")) ||
    [
      "src/formats/registry.ts",
      "src/formats/mod.ts",
      "src/inspect/mod.ts",
      "src/search/mod.ts",
      "src/store/mod.ts",
      "src/catalog/mod.ts",
      "src/catalog/_update.ts",
      "src/archive/mod.ts",
      "src/history/mod.ts",
      "src/usage/mod.ts",
      "node:zlib",
      "node:crypto",
    ].includes(name) ||
    (!name.includes("/") && !name.startsWith("node:") && !name.endsWith(".json"))
  ).sort();
}

Deno.test("loadedAtStart() follows static imports and import() of a literal, and leaves out type-only ones and late imports", async () => {
  const loaded = await loadedAtStart("cli/inspect.ts");
  assert(loaded.has("src/catalog/_catalog.ts"), "the walk follows the imports");
  assert(loaded.has("node:sqlite"));
  // cli/inspect.ts imports the inspector's types, and the inspector itself late.
  assert(!loaded.has("src/inspect/mod.ts"));
  // cli/_archived.ts imports the errors in an import() of a literal: Deno reads them at start.
  assert(loaded.has("src/errors/mod.ts"));
  await using dir = await tempDir();
  for (const name of ["typed.ts", "named.ts", "late.ts"]) {
    await Deno.writeTextFile(join(dir.path, name), "export {};\n");
  }
  const entry = join(dir.path, "entry.ts");
  await Deno.writeTextFile(
    entry,
    'type T = typeof import("./typed.ts");\nawait import("./named.ts");\nawait import(String("./late.ts"));\n',
  );
  const named = await loadedAtStart(entry);
  assertEquals([...named].map((name) => name.slice(name.lastIndexOf("/") + 1)).sort(), [
    "entry.ts",
    "named.ts",
  ]);
  assertEquals(heavy(new Set(["src/formats/codex/_reader.ts", "zod", "node:path"])), [
    "src/formats/codex/_reader.ts",
    "zod",
  ]);
});

/**
 * The entries and what each may load besides: search's face (lean itself now; re2js, the
 * `--regex` engine, loads when a pattern is compiled).
 */
const ENTRIES: Record<string, string[]> = {
  "cli/turnlog.ts": [],
  "cli/inspect.ts": [],
  "cli/search.ts": ["src/search/mod.ts"],
  "cli/usage.ts": [],
};

for (const [entry, allowed] of Object.entries(ENTRIES)) {
  Deno.test(`${entry} loads no reader, inspector, store or npm package at start`, async () => {
    assertEquals(heavy(await loadedAtStart(entry), allowed), []);
  });
}

Deno.test("cli/inspect.ts loads no format's search profile at start: a listing loads its home's alone", async () => {
  const loaded = await loadedAtStart("cli/inspect.ts");
  assertEquals([...loaded].filter((name) => /^src\/formats\/[^/]+\/_search\.ts$/.test(name)), []);
  assert(loaded.has("src/formats/_tool_starts.ts"));
});

Deno.test("cli/turnlog.ts and cli/inspect.ts load no store interface, format types or store views at start", async () => {
  // Each a module of types with an error class or a view a listing never runs: the errors
  // live beside what throws them (src/store/_spec.ts, src/formats/_errors.ts), and the store's
  // views load when a store decides.
  for (const entry of ["cli/turnlog.ts", "cli/inspect.ts"]) {
    const loaded = await loadedAtStart(entry);
    for (
      const name of [
        "src/store/_session_store.ts",
        "src/formats/_types.ts",
        "cli/_inspect_store.ts",
      ]
    ) {
      assert(!loaded.has(name), `${entry} loads ${name}`);
    }
  }
  assert((await loadedAtStart("cli/turnlog.ts")).has("src/formats/_errors.ts"));
});

Deno.test("TOOL_STARTS are the adapters' own words, and load the adapters' own search profiles", async () => {
  assertEquals(TOOL_STARTS.length, ADAPTERS.length);
  for (const [i, adapter] of ADAPTERS.entries()) {
    const start = TOOL_STARTS[i]!;
    for (const key of ["name", "tool", "shortTool", "fileNoun", "flag", "home"] as const) {
      assertEquals(start[key], adapter[key], `${adapter.name}: ${key}`);
    }
    assertEquals(await start.loadSearch(), adapter.search, `${adapter.name}: search`);
    assertEquals(await start.loadWalk(), adapter.search.walk, `${adapter.name}: walk`);
    assertEquals(start.listed, TOOL_HOMES[i]!.listed, `${adapter.name}: listed`);
  }
});

Deno.test("TOOL_HOMES are the adapters' own words, homes and search profiles, in the registry's order", () => {
  assertEquals(TOOL_HOMES.length, ADAPTERS.length);
  ADAPTERS.forEach((adapter, i) => {
    const home = TOOL_HOMES[i]!;
    for (const key of ["name", "tool", "shortTool", "fileNoun", "flag", "home"] as const) {
      assertEquals(home[key], adapter[key], `${adapter.name}: ${key}`);
    }
    assertEquals(home.search, adapter.search, `${adapter.name}: search`);
  });
});

const CLI = join(ROOT, "cli", "inspect.ts");

async function inspect(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", CLI, ...args],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/**
 * Copies a folder's files, each with a time of its own: one second apart, a folder's files before
 * its folders, so a subagent's transcript (under its session's folder) is later than its session.
 */
async function copiedWithOwnTimes(from: string, to: string, next = { at: 1_700_000_000 }) {
  await Deno.mkdir(to, { recursive: true });
  const entries = [];
  for await (const entry of Deno.readDir(from)) entries.push(entry);
  const order = (a: Deno.DirEntry, b: Deno.DirEntry) =>
    Number(a.isDirectory) - Number(b.isDirectory) || a.name.localeCompare(b.name);
  for (const entry of entries.sort(order)) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory) await copiedWithOwnTimes(source, target, next);
    if (!entry.isFile) continue;
    await Deno.copyFile(source, target);
    await Deno.utime(target, next.at, next.at++);
  }
}

Deno.test({
  name: "inspect --list --claude from the catalog lists the sessions --no-catalog lists",
  ignore: CORPUS_MISSING !== undefined,
  async fn() {
    // The corpus' Claude Code home has subagents whose sessions are gone and empty files: its
    // walk finds them, the listing leaves them out, and so does the catalog's. Its copy gives
    // each file its own time, a subagent's later than its session's (as a copy's may).
    await using dir = await tempDir();
    const home = join(dir.path, "claude");
    await copiedWithOwnTimes(join(CORPUS, "claude"), home);
    const env = {
      HOME: dir.path,
      PATH: Deno.env.get("PATH") ?? "",
      CLAUDE_CONFIG_DIR: home,
      TURNLOG_CATALOG: join(dir.path, "catalog.sqlite"),
      TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"),
      NO_COLOR: "1",
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        join(Deno.env.get("HOME") ?? "/root", ".cache", "deno"),
    };
    // Each session as the listing from the files shows it, in its order: what only a full read
    // tells (turns, verdict) aside, and the git branch, which the catalog does not keep.
    const listed = async (...flags: string[]) => {
      const ran = await inspect(["--list", "--claude", "--json", "--limit", "1000", ...flags], env);
      assertEquals(ran.code, 0, ran.stderr);
      const sessions = JSON.parse(ran.stdout).sessions as Record<string, unknown>[];
      return sessions.map(({ turns: _t, verdict: _v, gitBranch: _g, ...shown }) => shown);
    };
    const files = await listed("--no-catalog");
    assert(files.length > 0);
    assertEquals(await listed(), files, "the first build");
    assertEquals(await listed(), files, "warm");
  },
});

Deno.test({
  name:
    "search from a catalog kept up to date reads each folder of the home once (the update's walk is the search's)",
  ignore: CORPUS_MISSING !== undefined,
  async fn() {
    await using dir = await tempDir();
    const env = {
      CLAUDE_CONFIG_DIR: join(CORPUS, "claude"),
      TURNLOG_CATALOG: join(dir.path, "catalog.sqlite"),
      TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"),
    };
    const before = Object.fromEntries(Object.keys(env).map((name) => [name, Deno.env.get(name)]));
    for (const [name, value] of Object.entries(env)) Deno.env.set(name, value);
    const readDirSync = Deno.readDirSync;
    const reads: string[] = [];
    try {
      const { main } = await import("../cli/search.ts");
      const io = { out: () => {}, err: () => {} };
      assertEquals(await main(["--claude", "the"], io), 0, "the first build");
      Deno.readDirSync = (path) => {
        reads.push(String(path));
        return readDirSync(path);
      };
      assertEquals(await main(["--claude", "the"], io), 0, "warm");
    } finally {
      Deno.readDirSync = readDirSync;
      for (const [name, value] of Object.entries(before)) {
        if (value === undefined) Deno.env.delete(name);
        else Deno.env.set(name, value);
      }
    }
    const projects = join(CORPUS, "claude", "projects");
    assert(reads.includes(projects), reads.join("\n"));
    const twice = reads.filter((path, at) => reads.indexOf(path) !== at);
    assertEquals(twice, [], "folders read twice");
  },
});

Deno.test("cli/turnlog.ts, cli/inspect.ts, cli/search.ts and the Claude Code walk load no Node module but node:sqlite: node:path, node:util or node:url would evaluate about 55 more at start", async () => {
  for (const entry of ["cli/turnlog.ts", "cli/inspect.ts", "src/formats/claude_code/_walk.ts"]) {
    const node = [...await loadedAtStart(entry)].filter((name) => name.startsWith("node:"));
    assertEquals(node, entry === "cli/inspect.ts" ? ["node:sqlite"] : [], entry);
  }
  // A search too, and the walks of every home it names.
  const search = [...await loadedAtStart("cli/search.ts")];
  assertEquals(search.filter((name) => name.startsWith("node:")), ["node:sqlite"]);
});

Deno.test("src/catalog/_update.ts (loaded when the catalog's update finds a file new or changed) loads no Node module but node:sqlite: the readers and the inspector it loads use src/_path.ts, where node:path would evaluate about 55 more in every update that reads a file", async () => {
  const node = [...await loadedAtStart("src/catalog/_update.ts")].filter((name) =>
    name.startsWith("node:") && name !== "node:sqlite"
  );
  assertEquals(node, []);
});

Deno.test("ToolStart.loadWalk() of Claude Code loads its walk without the search profile's modules, nor io's", async () => {
  const loaded = [...await loadedAtStart("src/formats/claude_code/_walk.ts")];
  // text's face (the order of names), which every command loads anyway.
  const own = loaded.filter((name) => name.startsWith("src/") && !name.startsWith("src/text/"));
  assertEquals(own.sort(), [
    "src/_late.ts",
    "src/_path.ts",
    "src/formats/_dir.ts",
    "src/formats/claude_code/_walk.ts",
  ]);
});

Deno.test("a warm listing of a home (cli/turnlog.ts, then cli/inspect.ts and Claude Code's walk) loads none of io, the heads' reading or the catalog's search index", async () => {
  const loaded = new Set<string>();
  for (const entry of ["cli/turnlog.ts", "cli/inspect.ts", "src/formats/claude_code/_walk.ts"]) {
    for (const name of await loadedAtStart(entry)) loaded.add(name);
  }
  assert(loaded.has("src/catalog/_catalog.ts"), "the walk follows the listing's imports");
  const searching = [...loaded].filter((name) =>
    name.startsWith("src/io/") ||
    ["src/formats/_head.ts", "src/formats/_line.ts", "src/catalog/_search.ts"].includes(name)
  );
  assertEquals(searching, []);
});
