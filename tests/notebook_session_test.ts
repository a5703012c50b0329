/**
 * Notebook 03 shows byte offsets into the session it writes, so that session must be the same
 * bytes on every run (issue 28: the temp folder's path, recorded as the workspace, moved them).
 * This runs the notebook's own session-building cells twice, in two processes (two embedded
 * model ports) under two temp folders of different lengths, and compares the files.
 *
 * @module
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { notebookClock, notebookModule } from "../scripts/notebooks.ts";
import { FIXED_CLOCK_ENV } from "../src/record/mod.ts";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";

const ROOT = new URL("..", import.meta.url);
const NOTEBOOK = new URL("notebooks/03_compaction_and_replay.ipynb", ROOT);

/** The displays of the notebook's cells go nowhere: this runs outside a Jupyter kernel. */
const QUIET_DISPLAY = (rootUrl: string) => `
import * as real from "${rootUrl}src/notebook/mod.ts";
export * from "${rootUrl}src/notebook/mod.ts";
const quiet = { display: () => {}, settleMs: 0 };
export const showMarkdown = (text: string) => real.showMarkdown(text, quiet);
export const showTable = (rows: Record<string, real.TableValue>[], options?: real.TableOptions) =>
  real.showTable(rows, { ...options, ...quiet });
export const showText = (text: string) => real.showText(text, quiet);
export const showSvg = (svg: string) => real.showSvg(svg, quiet);
`;

/**
 * The notebook's first code cells (the set-up and the eight turns) as a module that copies the
 * session file to `copyTo` and stops the embedded model.
 */
async function sessionBuildingModule(folder: string, codeCells: number): Promise<string> {
  const rootUrl = ROOT.href;
  const notebook = JSON.parse(await Deno.readTextFile(NOTEBOOK)) as {
    cells: { cell_type: string; source: string | string[] }[];
  };
  const code = notebook.cells.filter((cell) => cell.cell_type === "code").slice(0, codeCells);
  const { code: module } = notebookModule(JSON.stringify({ cells: code }), { rootUrl });
  await Deno.writeTextFile(join(folder, "display.ts"), QUIET_DISPLAY(rootUrl));
  const path = join(folder, "build.ts");
  await Deno.writeTextFile(
    path,
    module.replaceAll(
      `${rootUrl}src/notebook/mod.ts`,
      pathToFileURL(join(folder, "display.ts")).href,
    ) +
      "await Deno.copyFile(sessionPath, Deno.args[0]!);\nawait model.close();\n" +
      "await Deno.remove(scratch, { recursive: true });\n",
  );
  return path;
}

/** Runs the module with its temp folders under `tmp`; the session file's bytes. */
async function buildSession(module: string, tmp: string, copyTo: string): Promise<Uint8Array> {
  const result = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--config",
      new URL("deno.json", ROOT).pathname,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      module,
      copyTo,
    ],
    env: { TMPDIR: tmp, [FIXED_CLOCK_ENV]: notebookClock(3), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const log = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  assert(result.success, `notebook 03's session-building cells failed:\n${log}`);
  return await Deno.readFile(copyTo);
}

Deno.test("notebook 03 writes the same session bytes under two temp folders and two ports", async () => {
  await using dir = await tempDir();
  const module = await sessionBuildingModule(dir.path, 2);
  const short = join(dir.path, "t");
  const long = join(dir.path, "a-much-longer-temp-folder-name");
  await Deno.mkdir(short);
  await Deno.mkdir(long);
  const first = await buildSession(module, short, join(dir.path, "first.jsonl"));
  const second = await buildSession(module, long, join(dir.path, "second.jsonl"));
  const text = new TextDecoder().decode(first);
  // As text first: a difference shows as the lines that differ.
  assertEquals(new TextDecoder().decode(second), text);
  assertEquals(second, first);
  assert(text.includes('"cwd":"/notebook-3/workspace"'), "the session records the fixed name");
  assert(!text.includes(dir.path), "the session shows no temp folder");
  assert(text.includes('"compaction_checkpoint"'), "the conversation compacted");
});
