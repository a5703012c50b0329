/**
 * The layout rules of `src/` (docs/layout.md), counted over the real imports of the source
 * (not the ones inside doc comments): no import circles; other tools' formats reached through
 * their adapter only; no format name compared outside the format folders.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { dirname, join, relative, resolve } from "node:path";
import { assertEquals } from "./_assert.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

async function sourceFiles(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) found.push(...await sourceFiles(path));
    else if (entry.isFile && entry.name.endsWith(".ts")) found.push(path);
  }
  return found.sort();
}

/** The lines of a file that are code: doc comments, comments and blank lines taken out. */
function codeLines(text: string): string[] {
  const lines: string[] = [];
  let inComment = false;
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (inComment) {
      if (trimmed.includes("*/")) inComment = false;
      continue;
    }
    if (trimmed.startsWith("/*")) {
      inComment = !trimmed.includes("*/");
      continue;
    }
    if (trimmed.startsWith("//") || trimmed === "") continue;
    lines.push(line);
  }
  return lines;
}

/** A static import or export: whether it is type-only (`import type`), and its specifier. */
const STATIC = /^(?:import|export)\b(\s+type\b)?[^;]*?\bfrom\s*"([^"]+)"|^import\s*"([^"]+)"/gm;
const DYNAMIC = /\bimport\(\s*"(\.[^"]+)"\s*\)/g;

/** The static imports and exports of a file's code (its {@linkcode codeLines}, joined). */
function staticImports(code: string): { specifier: string; typeOnly: boolean }[] {
  return [...code.matchAll(STATIC)].map((m) => ({
    specifier: m[2] ?? m[3]!,
    typeOnly: m[1] !== undefined,
  }));
}

/** The relative files a source file imports, statically or dynamically, as absolute paths. */
function importsOf(path: string, text: string): string[] {
  const code = codeLines(text).join("\n");
  const specifiers = [
    ...staticImports(code).map((found) => found.specifier),
    ...[...code.matchAll(DYNAMIC)].map((m) => m[1]!),
  ].filter((specifier) => specifier.startsWith("."));
  return specifiers.map((specifier) => resolve(dirname(path), specifier));
}

async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const path of await sourceFiles(join(ROOT, "src"))) {
    graph.set(path, importsOf(path, await Deno.readTextFile(path)));
  }
  return graph;
}

/** The import circles of a graph: its strongly connected parts of more than one file. */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      part.push(relative(ROOT, top));
    } while (top !== node);
    if (part.length > 1) found.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * Circles known when this test was written, in modules another change of the same issue
 * takes apart (store split by job, resume as one line): each must go, and the test says so
 * once it has gone, so the list only ever shrinks. Empty: no circle at all.
 */
const KNOWN_CIRCLES: readonly string[] = [];

/**
 * The bare specifiers (npm packages, `node:` modules) a process that runs `entry` loads before
 * its first line runs: the static imports that load, followed through the relative ones.
 * `import defer` loads (Deno reads and compiles the module, only its evaluation waits); a
 * dynamic `import()` does not, until it is called. The files it loads are added to `seen`.
 */
async function loadedAtStart(entry: string, seen = new Set<string>()): Promise<Set<string>> {
  const bare = new Set<string>();
  const next = [resolve(ROOT, entry)];
  for (let path = next.pop(); path !== undefined; path = next.pop()) {
    if (seen.has(path)) continue;
    seen.add(path);
    const code = codeLines(await Deno.readTextFile(path)).join("\n");
    for (const { specifier, typeOnly } of staticImports(code)) {
      if (typeOnly) continue;
      if (specifier.startsWith(".")) next.push(resolve(dirname(path), specifier));
      else bare.add(specifier);
    }
  }
  return bare;
}

Deno.test("reading a session loads no zod: inspect, import and search start without it", async () => {
  // zod is about 100 modules (about 25 ms of every start); src/record loads it only for a line
  // that fails the hand-written checks (src/record/_schemas_lazy.ts).
  for (const entry of ["cli/inspect.ts", "cli/import.ts", "cli/search.ts"]) {
    const files = new Set<string>();
    const loaded = await loadedAtStart(entry, files);
    assertEquals(loaded.has("zod"), false, `${entry} loads zod at start`);
    // The walk follows the imports past the entry (into src/text/, which each of them imports).
    const text = [...files].some((path) => relative(ROOT, path).startsWith("src/text/"));
    assertEquals(text, true, `${entry}: the walk follows the imports`);
  }
});

Deno.test("usage loads at start only what answers a warm run: no formats registry, reader, walk, price table, node:util or node:path", async () => {
  // Each is loaded by an import() when something changed; a warm run (cli/usage.ts's warmCount)
  // answers from the catalog with node:sqlite and the report (and the catalog's stamp check of
  // the tables kept beside it, which imports nothing but its transaction).
  const files = new Set<string>();
  const loaded = await loadedAtStart("cli/usage.ts", files);
  const heavy = [...files].map((path) => relative(ROOT, path)).filter((path) =>
    /^src\/(formats|search|store|catalog\/(?!_named\.ts|_side_tables\.ts|_transaction\.ts))|^src\/usage\/_(prices|collect|catalog)\.ts$/
      .test(path)
  );
  assertEquals(heavy, []);
  assertEquals(
    ["@pydantic/genai-prices", "node:util", "node:path"].filter((name) => loaded.has(name)),
    [],
  );
  assertEquals(loaded.has("node:sqlite"), true, "the walk follows the imports");
});

Deno.test("src/ has no import circles (real imports, doc comments left out)", async () => {
  const found = circles(await importGraph()).map((part) => part.join(" "));
  assertEquals(found.filter((part) => !KNOWN_CIRCLES.includes(part)), [], "new import circles");
  assertEquals(
    KNOWN_CIRCLES.filter((part) => !found.includes(part)),
    [],
    "circles gone: take them out of KNOWN_CIRCLES",
  );
});

Deno.test("the import counter sees real imports and not the ones in doc comments", () => {
  const text = [
    "/**",
    " * ```ts",
    ' * import { a } from "./in_a_doc.ts";',
    " * ```",
    " */",
    'import { b } from "./real.ts";',
    'export * from "./also_real.ts";',
    '// import { c } from "./commented.ts";',
    'const late = await import("./dynamic.ts");',
  ].join("\n");
  assertEquals(importsOf("/x/y.ts", text), ["/x/real.ts", "/x/also_real.ts", "/x/dynamic.ts"]);
  const graph = new Map([["/a", ["/b"]], ["/b", ["/a"]], ["/c", ["/a"]]]);
  assertEquals(circles(graph).length, 1);
});

/** The folders of other tools' formats: `src/formats/<name>/`. */
async function formatFolders(): Promise<string[]> {
  const folders: string[] = [];
  for await (const entry of Deno.readDir(join(ROOT, "src/formats"))) {
    if (entry.isDirectory) folders.push(join(ROOT, "src/formats", entry.name));
  }
  return folders;
}

Deno.test("a format folder is reached through its adapter: only the registry imports it (and the homes its home and search profile)", async () => {
  const folders = await formatFolders();
  const graph = await importGraph();
  const strays: string[] = [];
  for (const [file, imports] of graph) {
    for (const target of imports) {
      const folder = folders.find((f) => target.startsWith(f + "/"));
      if (folder === undefined || file.startsWith(folder + "/")) continue;
      const allowed = file === join(ROOT, "src/formats/registry.ts") ||
        (file === join(ROOT, "src/formats/mod.ts") && target === join(folder, "mod.ts")) ||
        // The homes without their readers, for the commands answered from the catalog: each
        // folder's start, with its search profile for a search.
        (file === join(ROOT, "src/formats/_tool_starts.ts") &&
          target === join(folder, "_home.ts")) ||
        (file === join(ROOT, "src/formats/_tool_homes.ts") &&
          [join(folder, "_home.ts"), join(folder, "_search.ts")].includes(target)) ||
        (file === join(ROOT, "src/formats/homes.ts") &&
          target === join(ROOT, "src/formats/turnlog/mod.ts")) ||
        // The usage readers without the adapters, for the worker of a cold usage count.
        (file === join(ROOT, "src/formats/usage_readers.ts") &&
          (target === join(folder, "_home.ts") || target === join(folder, "_usage.ts")));
      if (!allowed) strays.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
    }
  }
  assertEquals(strays, []);
});

Deno.test("src/formats imports other folders' faces only, never their private files", async () => {
  const strays: string[] = [];
  const formats = join(ROOT, "src/formats");
  for (const [file, imports] of await importGraph()) {
    if (!file.startsWith(formats + "/")) continue;
    for (const target of imports) {
      // A folder's private file (src/_late.ts, in no folder, is everyone's).
      const private_ = /\/src\/[^/]+\/(?:[^/]+\/)*_[^/]*\.ts$/.test(target);
      if (!target.startsWith(formats + "/") && private_) {
        strays.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
      }
    }
  }
  assertEquals(strays, []);
});

/** Each adapter's name, as a quoted string in code. */
async function quotedFormatNames(): Promise<RegExp> {
  const { ADAPTERS } = await import("../src/formats/mod.ts");
  const names = ADAPTERS.flatMap((adapter) => [adapter.name, adapter.flag]);
  return new RegExp(`["'\`](?:${[...names, "turnlog"].join("|")})["'\`]`);
}

Deno.test("no format name is written outside the format folders in src/ and cli/ (code, not docs)", async () => {
  const named = await quotedFormatNames();
  const folders = await formatFolders();
  // The words turnlog names itself by (a generator, a database client) are not formats.
  const itself =
    /applicationName: "turnlog"|owned_by: "turnlog"|content="turnlog"|join\(data, "turnlog"/;
  const strays: string[] = [];
  const files = [
    ...await sourceFiles(join(ROOT, "src")),
    ...await sourceFiles(join(ROOT, "cli")),
  ];
  for (const file of files) {
    if (folders.some((folder) => file.startsWith(folder + "/"))) continue;
    if (file === join(ROOT, "src/formats/_types.ts")) continue; // TURNLOG_FORMAT, written once
    for (const line of codeLines(await Deno.readTextFile(file))) {
      if (named.test(line) && !itself.test(line)) {
        strays.push(`${relative(ROOT, file)}: ${line.trim()}`);
      }
    }
  }
  assertEquals(strays, []);
});

Deno.test("nothing outside src/formats looks an adapter up by name: it travels, or data names it through adapterOfData", async () => {
  // The command that found or detected a session hands its adapter on. A report, a repair plan
  // or a search source is JSON data carrying a format's name: `adapterOfData`, in the views and
  // planners of such data alone (a new one is a deliberate entry here); `homeOfData` is its
  // answer without the readers (src/formats/homes.ts).
  const byName = /\badapterOf\(/;
  const data = /\b(?:adapterOfData|homeOfData)\(/;
  const strays: string[] = [];
  const readers: string[] = [];
  const files = [
    ...await sourceFiles(join(ROOT, "src")),
    ...await sourceFiles(join(ROOT, "cli")),
  ];
  for (const file of files) {
    if (file.startsWith(join(ROOT, "src/formats") + "/")) continue;
    const lines = codeLines(await Deno.readTextFile(file));
    for (const line of lines) {
      if (byName.test(line)) strays.push(`${relative(ROOT, file)}: ${line.trim()}`);
    }
    if (lines.some((line) => data.test(line))) readers.push(relative(ROOT, file));
  }
  assertEquals(strays, []);
  assertEquals(readers.sort(), [
    "cli/_archived.ts",
    "cli/restore.ts",
    "src/archive/_restore.ts",
    "src/catalog/_facts.ts",
    "src/catalog/_update.ts",
    "src/export/_conversation.ts",
    "src/html/_page.ts",
    "src/inspect/_render_report.ts",
    "src/repair/_dispatch.ts",
    "src/repair/_turnlog.ts",
    "src/search/_profiles.ts",
    "src/usage/_collect.ts",
  ]);
});

Deno.test("nothing above src/store asks which kind of store it has (it asks the store)", async () => {
  const kind = /instanceof (?:FileStore|PostgresStore)\b|\.kind === "(?:files|postgres)"/;
  const strays: string[] = [];
  const files = [
    ...await sourceFiles(join(ROOT, "src")),
    ...await sourceFiles(join(ROOT, "cli")),
  ].filter((file) => !file.startsWith(join(ROOT, "src/store") + "/"));
  for (const file of files) {
    for (const line of codeLines(await Deno.readTextFile(file))) {
      if (kind.test(line)) strays.push(`${relative(ROOT, file)}: ${line.trim()}`);
    }
  }
  assertEquals(strays, []);
});

Deno.test("cli/ and testing/ import nothing of each other, and the package ships no testing/ file", async () => {
  const crossings: string[] = [];
  for (const [from, to] of [["cli", "testing"], ["testing", "cli"]] as const) {
    for (const file of await sourceFiles(join(ROOT, from))) {
      for (const target of importsOf(file, await Deno.readTextFile(file))) {
        if (target.startsWith(join(ROOT, to) + "/")) {
          crossings.push(`${relative(ROOT, file)} imports ${relative(ROOT, target)}`);
        }
      }
    }
  }
  assertEquals(crossings, []);
  const pkg = JSON.parse(await Deno.readTextFile(join(ROOT, "package.json")));
  assertEquals((pkg.files as string[]).filter((file) => file.startsWith("testing")), []);
});

Deno.test("nothing outside src/formats names TURNLOG_FORMAT or asks whether a format has an adapter", async () => {
  // turnlog's own format is an adapter: code tells it by `adapter.own`, never by its name or
  // by a missing adapter (`adapterOf(...) === undefined`, `adapterOf(...) ?`).
  const asked =
    /TURNLOG_FORMAT|adapterOf\([^)]*\)\s*(?:[!=]==?\s*undefined|\?)|adapterOfFile\([^)]*\)\)?\s*\?/;
  const strays: string[] = [];
  const files = [
    ...await sourceFiles(join(ROOT, "src")),
    ...await sourceFiles(join(ROOT, "cli")),
  ];
  for (const file of files) {
    if (file.startsWith(join(ROOT, "src/formats") + "/")) continue;
    for (const line of codeLines(await Deno.readTextFile(file))) {
      if (asked.test(line)) strays.push(`${relative(ROOT, file)}: ${line.trim()}`);
    }
  }
  assertEquals(strays, []);
});
