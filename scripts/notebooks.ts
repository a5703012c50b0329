/**
 * Executes every teaching notebook headless on the Deno Jupyter kernel and writes it back with
 * its outputs (`./denow task notebooks`). The kernelspec lives in a project-local Jupyter
 * folder (`.jupyter/`, git-ignored), so nothing touches the user's home. A notebook is written
 * back only when it ran without an error and every code cell that should show something did.
 *
 * Usage: `deno run -A scripts/notebooks.ts [--output-dir DIR] [--timeout SECONDS] [NAME...]`
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { FIXED_CLOCK_ENV } from "../src/record/mod.ts";

const HELP = `Usage: ./denow task notebooks [options] [name...]

Executes the notebooks in notebooks/ on the Deno Jupyter kernel and writes them back
with their outputs. A name selects the notebooks whose file name contains it.

Options:
  --output-dir DIR   write the executed notebooks to DIR instead of back in place
  --timeout SECONDS  the longest a single cell may run (default 180)
  -h, --help         this text

Needs Jupyter (Debian: apt-get install jupyter-nbconvert jupyter-client python3-nbclient).`;

/** A code cell that shows nothing on purpose says so with this comment or the tag. */
export const NO_OUTPUT_MARKER = "// no output";
/** The cell tag that marks a code cell without output. */
export const NO_OUTPUT_TAG = "no-output";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const NOTEBOOKS_DIR = join(ROOT, "notebooks");
const KERNEL_NAME = "deno";

interface NotebookCell {
  cell_type: string;
  source: string | string[];
  metadata?: { tags?: string[] };
  outputs?: { output_type: string; ename?: string; evalue?: string }[];
  execution_count?: number | null;
}

interface Options {
  outputDir: string | undefined;
  timeoutSeconds: number;
  names: string[];
}

class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

function parseArgs(args: string[]): Options | "help" {
  const options: Options = { outputDir: undefined, timeoutSeconds: 180, names: [] };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? "";
    const value = () => {
      const next = args[++index];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === "-h" || arg === "--help") return "help";
    else if (arg === "--output-dir") options.outputDir = value();
    else if (arg === "--timeout") {
      const seconds = Number(value());
      if (!Number.isInteger(seconds) || seconds <= 0) {
        throw new UsageError("--timeout needs a whole number of seconds");
      }
      options.timeoutSeconds = seconds;
    } else if (arg.startsWith("-")) throw new UsageError(`Unknown option ${arg}`);
    else options.names.push(arg);
  }
  return options;
}

/** True when `jupyter nbconvert` can be run. */
async function jupyterAvailable(): Promise<boolean> {
  try {
    const { success } = await new Deno.Command("jupyter", {
      args: ["nbconvert", "--version"],
      stdout: "null",
      stderr: "null",
    }).output();
    return success;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Writes the Deno kernelspec into `<root>/.jupyter` and returns the environment using it. */
async function projectJupyter(sessionsDir: string): Promise<Record<string, string>> {
  const base = join(ROOT, ".jupyter");
  const data = join(base, "data");
  const kernelDir = join(data, "kernels", KERNEL_NAME);
  await Deno.mkdir(kernelDir, { recursive: true });
  await Deno.mkdir(join(base, "config"), { recursive: true });
  await Deno.mkdir(join(base, "runtime"), { recursive: true });
  const kernel = {
    // The exact Deno running this script, so the kernel is the pinned version.
    argv: [Deno.execPath(), "jupyter", "--kernel", "--conn", "{connection_file}"],
    display_name: "Deno",
    language: "typescript",
    env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  };
  await Deno.writeTextFile(join(kernelDir, "kernel.json"), JSON.stringify(kernel, null, 2) + "\n");
  return {
    JUPYTER_PATH: data,
    JUPYTER_DATA_DIR: data,
    JUPYTER_CONFIG_DIR: join(base, "config"),
    JUPYTER_RUNTIME_DIR: join(base, "runtime"),
    // A safety net: a notebook that forgot its temp root still never writes into ./sessions.
    TURNLOG_SESSIONS_DIR: sessionsDir,
    NO_COLOR: "1",
  };
}

function cellSource(cell: NotebookCell): string {
  return Array.isArray(cell.source) ? cell.source.join("") : cell.source;
}

/**
 * What is wrong with an executed notebook: a cell that should show something and shows
 * nothing, a cell that was not run, an error output, or an output that leaks a machine path.
 */
export function checkExecutedNotebook(
  text: string,
  options: { forbidden?: readonly string[] } = {},
): string[] {
  const notebook = JSON.parse(text) as { cells: NotebookCell[] };
  const problems: string[] = [];
  notebook.cells.forEach((cell, index) => {
    if (cell.cell_type !== "code") return;
    const source = cellSource(cell);
    if (source.trim() === "") return;
    const where = `cell ${index + 1} (${source.split("\n")[0]?.slice(0, 60)})`;
    const outputs = cell.outputs ?? [];
    const quiet = source.includes(NO_OUTPUT_MARKER) ||
      (cell.metadata?.tags ?? []).includes(NO_OUTPUT_TAG);
    if (typeof cell.execution_count !== "number") problems.push(`${where}: not executed`);
    if (!quiet && outputs.length === 0) {
      problems.push(
        `${where}: no output (mark a cell that shows nothing with "${NO_OUTPUT_MARKER}")`,
      );
    }
    for (const output of outputs) {
      if (output.output_type === "error") {
        problems.push(`${where}: ${output.ename ?? "error"}: ${output.evalue ?? ""}`);
      }
      const serialized = JSON.stringify(output);
      for (const path of options.forbidden ?? []) {
        if (serialized.includes(path)) problems.push(`${where}: output shows the path ${path}`);
      }
    }
  });
  return problems;
}

/** A notebook's code cells as one module, and where each of its lines came from. */
export function notebookModule(
  text: string,
  options: { rootUrl: string },
): { code: string; origin: { cell: number; line: number }[] } {
  const notebook = JSON.parse(text) as { cells: NotebookCell[] };
  const lines: string[] = [];
  const origin: { cell: number; line: number }[] = [];
  notebook.cells.forEach((cell, index) => {
    if (cell.cell_type !== "code") return;
    // The kernel resolves "../src/x.ts" from notebooks/; the module lives elsewhere.
    const source = cellSource(cell).replaceAll(/(["'])\.\.\//g, `$1${options.rootUrl}`);
    source.split("\n").forEach((line, at) => {
      lines.push(line);
      origin.push({ cell: index + 1, line: at + 1 });
    });
  });
  return { code: lines.join("\n") + "\n", origin };
}

/**
 * Type-checks a notebook's code cells together (the kernel itself does not type-check), so a
 * change in `src/` that breaks a notebook fails here with the cell and line, before it runs.
 * Returns the errors, empty when it checks.
 */
async function typeCheckNotebook(path: string, scratch: string): Promise<string> {
  const { code, origin } = notebookModule(await Deno.readTextFile(path), {
    rootUrl: new URL("../", import.meta.url).href,
  });
  const modulePath = join(scratch, basename(path).replace(/\.ipynb$/, ".ts"));
  await Deno.writeTextFile(modulePath, code);
  const result = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--config", join(ROOT, "deno.json"), modulePath],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (result.success) return "";
  const output = new TextDecoder().decode(result.stderr) + new TextDecoder().decode(result.stdout);
  // "file:///.../01_x.ts:12:5" -> "cell 3, line 4:5"
  return output.replaceAll(
    new RegExp(`(?:file://)?${escapeRegExp(modulePath)}:(\\d+):(\\d+)`, "g"),
    (_, line: string, column: string) => {
      const from = origin[Number(line) - 1];
      return from ? `cell ${from.cell}, line ${from.line}:${column}` : `line ${line}:${column}`;
    },
  ).trim();
}

function escapeRegExp(text: string): string {
  return text.replaceAll(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The useful end of nbconvert's complaint: the failing cell and its error. */
function failureText(stderr: string): string {
  const lines = stderr.split("\n").filter((line) => !line.includes("is unstable"));
  const start = lines.findIndex((line) => line.includes("An error occurred while executing"));
  return (start >= 0 ? lines.slice(start) : lines.slice(-25)).join("\n").trim();
}

/** What running the notebooks shares. */
interface Run {
  options: Options;
  env: Record<string, string>;
  staging: string;
  forbidden: string[];
}

/**
 * The clock of notebook number `n`: fixed, so that its session ids and times (and so its
 * outputs) are the same every run; each notebook its own, so two never share an id.
 */
export function notebookClock(n: number): string {
  return `${new Date(Date.UTC(2026, 0, 15, 9, n)).toISOString()},${n}`;
}

/** Type-checks, executes and checks one notebook, then writes it back; true when it passed. */
async function runNotebook(run: Run, name: string, n: number): Promise<boolean> {
  const begin = performance.now();
  const typeErrors = await typeCheckNotebook(join(NOTEBOOKS_DIR, name), run.staging);
  if (typeErrors) {
    console.error(`FAIL ${name}: its code does not type-check\n\n${typeErrors}\n`);
    return false;
  }
  const result = await new Deno.Command("jupyter", {
    args: [
      "nbconvert",
      "--to",
      "notebook",
      "--execute",
      "--output-dir",
      run.staging,
      `--ExecutePreprocessor.kernel_name=${KERNEL_NAME}`,
      `--ExecutePreprocessor.timeout=${run.options.timeoutSeconds}`,
      "--ExecutePreprocessor.startup_timeout=120",
      // No per-cell timestamps: a re-run changes only what the code shows.
      "--ExecutePreprocessor.record_timing=False",
      join(NOTEBOOKS_DIR, name),
    ],
    cwd: ROOT,
    env: { ...run.env, [FIXED_CLOCK_ENV]: notebookClock(n) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const seconds = ((performance.now() - begin) / 1000).toFixed(1);
  if (!result.success) {
    console.error(`FAIL ${name} (${seconds} s): it raised an error\n`);
    console.error(failureText(new TextDecoder().decode(result.stderr)) + "\n");
    return false;
  }
  const executed = await Deno.readTextFile(join(run.staging, name));
  const problems = checkExecutedNotebook(executed, { forbidden: run.forbidden });
  if (problems.length > 0) {
    console.error(`FAIL ${name} (${seconds} s):`);
    for (const problem of problems) console.error(`  ${problem}`);
    return false;
  }
  const target = join(run.options.outputDir ?? NOTEBOOKS_DIR, name);
  await Deno.mkdir(dirname(target), { recursive: true });
  await Deno.writeTextFile(target, executed);
  const cells = (JSON.parse(executed) as { cells: NotebookCell[] }).cells;
  const code = cells.filter((cell) => cell.cell_type === "code");
  const outputs = code.reduce((sum, cell) => sum + (cell.outputs?.length ?? 0), 0);
  const where = run.options.outputDir ? ` -> ${basename(run.options.outputDir)}/` : "";
  console.log(`ok   ${name}: ${code.length} code cells, ${outputs} outputs (${seconds} s)${where}`);
  return true;
}

/** The notebooks the names select (all without names), sorted. */
async function selectNotebooks(names: string[]): Promise<string[]> {
  const notebooks = [];
  for await (const entry of Deno.readDir(NOTEBOOKS_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".ipynb")) continue;
    if (names.length > 0 && !names.some((name) => entry.name.includes(name))) continue;
    notebooks.push(entry.name);
  }
  return notebooks.sort();
}

async function main(args: string[]): Promise<number> {
  let options: Options;
  try {
    const parsed = parseArgs(args);
    if (parsed === "help") {
      console.log(HELP);
      return 0;
    }
    options = parsed;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(
      `turnlog notebooks: ${error.message}\nRun ./denow task notebooks --help for the options.`,
    );
    return 2;
  }
  if (!await jupyterAvailable()) {
    console.error(
      "turnlog notebooks: Jupyter is not installed (jupyter nbconvert not found)\n" +
        "Debian/Ubuntu: sudo apt-get install jupyter-nbconvert jupyter-client python3-nbclient",
    );
    return 2;
  }
  const notebooks = await selectNotebooks(options.names);
  if (notebooks.length === 0) {
    console.error(
      `turnlog notebooks: no notebook in notebooks/ matches ${options.names.join(", ")}`,
    );
    return 2;
  }
  const sessionsDir = await Deno.makeTempDir({ prefix: "turnlog-notebooks-sessions-" });
  const staging = await Deno.makeTempDir({ prefix: "turnlog-notebooks-out-" });
  const run: Run = {
    options,
    env: await projectJupyter(sessionsDir),
    staging,
    forbidden: [ROOT + "/", dirname(sessionsDir) + "/"],
  };
  const started = performance.now();
  let failed = 0;
  try {
    for (const [n, name] of notebooks.entries()) {
      // The clock goes by the notebook's own number, so running one alone changes nothing.
      const number = Number(/^(\d+)_/.exec(name)?.[1] ?? n + 1);
      if (!await runNotebook(run, name, number)) failed++;
    }
  } finally {
    await Deno.remove(sessionsDir, { recursive: true });
    await Deno.remove(staging, { recursive: true });
  }
  const total = ((performance.now() - started) / 1000).toFixed(1);
  if (failed > 0) {
    console.error(
      `turnlog notebooks: ${failed} of ${notebooks.length} notebooks failed (${total} s)`,
    );
    return 1;
  }
  const where = options.outputDir ? `written to ${options.outputDir}` : "written back";
  console.log(`${notebooks.length} notebooks executed and ${where} with outputs (${total} s)`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
