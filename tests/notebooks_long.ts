import { checkExecutedNotebook, notebookModule } from "../scripts/notebooks.ts";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { needing } from "./_needs.ts";

const ROOT = new URL("..", import.meta.url);

function jupyterInstalled(): boolean {
  try {
    return new Deno.Command("jupyter", {
      args: ["nbconvert", "--version"],
      stdout: "null",
      stderr: "null",
    }).outputSync().success;
  } catch {
    return false;
  }
}

const NO_JUPYTER = jupyterInstalled() ? undefined : "Jupyter not installed " +
  "(Debian: apt-get install jupyter-nbconvert jupyter-client python3-nbclient)";

/** What each notebook must show once executed: the facts it exists to teach. */
const EXPECTED: Record<string, { svgCharts: number; phrases: string[] }> = {
  "01_sessions_and_runs.ipynb": {
    svgCharts: 1,
    phrases: ["session_meta", "turn_context", "Records added by turn 2"],
  },
  "02_interrupted_tool_call.ipynb": {
    svgCharts: 1,
    phrases: ["SIGKILL", "slow_task", "SESSION_RESUME_INTERRUPTED", "synthesized outputs: 0"],
  },
  "03_compaction_and_replay.ipynb": {
    svgCharts: 1,
    phrases: ["compaction_checkpoint", "replay from the last checkpoint equals a full replay"],
  },
  "04_inspector.ipynb": {
    svgCharts: 2,
    phrases: ["the same document", "Synthesized outputs", "(none: killed)"],
  },
  "05_other_tools.ipynb": {
    svgCharts: 4,
    phrases: [
      "a Codex session_meta line",
      "a Claude Code user line",
      "(not shown: reasoning)",
      "compact_boundary",
      "every call paired",
      "unchanged",
    ],
  },
};

interface Output {
  output_type: string;
  text?: string | string[];
  data?: Record<string, string | string[]>;
}

function outputText(output: Output): string {
  const join = (value: string | string[] | undefined) =>
    Array.isArray(value) ? value.join("") : value ?? "";
  return join(output.text) + Object.values(output.data ?? {}).map(join).join("\n");
}

Deno.test({
  ...needing(
    "every notebook runs headless on the Deno kernel and shows what it teaches",
    NO_JUPYTER,
  ),
  async fn() {
    await using out = await tempDir();
    const result = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "scripts/notebooks.ts", "--output-dir", out.path],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const log = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
    assert(result.success, `scripts/notebooks.ts failed:\n${log}`);

    const written = [];
    for await (const entry of Deno.readDir(out.path)) written.push(entry.name);
    const shipped = [];
    for await (const entry of Deno.readDir(new URL("notebooks/", ROOT))) {
      if (entry.name.endsWith(".ipynb")) shipped.push(entry.name);
    }
    assertEquals(written.sort(), shipped.sort());
    for (const name of Object.keys(EXPECTED)) {
      assert(shipped.includes(name), `notebooks/${name} is missing`);
    }
    for (const name of written) {
      const text = await Deno.readTextFile(`${out.path}/${name}`);
      const outputs = (JSON.parse(text) as { cells: { outputs?: Output[] }[] }).cells
        .flatMap((cell) => cell.outputs ?? []);
      const shown = outputs.map(outputText).join("\n");
      const expected = EXPECTED[name];
      if (expected === undefined) continue;
      const charts = outputs.filter((output) => output.data?.["image/svg+xml"] !== undefined);
      assert(
        charts.length >= expected.svgCharts,
        `${name}: ${charts.length} charts, expected ${expected.svgCharts}`,
      );
      for (const phrase of expected.phrases) {
        assert(shown.includes(phrase), `${name} does not show "${phrase}"`);
      }
    }
    // The committed notebooks are what a fresh run shows: the code they run writes every
    // output the same way each time (a fixed clock, the embedded model), so any difference is
    // a notebook older than the code.
    const stale: string[] = [];
    for (const name of written) {
      const fresh = cellsOf(await Deno.readTextFile(`${out.path}/${name}`));
      const committed = cellsOf(await Deno.readTextFile(new URL(`notebooks/${name}`, ROOT)));
      const at = committed.findIndex((cell, i) => cell !== fresh[i]);
      if (at >= 0 || committed.length !== fresh.length) {
        stale.push(`${name}: cell ${(at >= 0 ? at : committed.length) + 1} differs`);
      }
    }
    assertEquals(
      stale,
      [],
      "the committed notebooks differ from a fresh run: ./denow task notebooks",
    );
  },
});

/** A notebook's cells as compared with a fresh run: each cell's source and outputs, as JSON. */
function cellsOf(text: string): string[] {
  const { cells } = JSON.parse(text) as { cells: Record<string, unknown>[] };
  return cells.map((cell) =>
    JSON.stringify([cell.cell_type, cell.source, cell.execution_count ?? null, cell.outputs ?? []])
  );
}

const notebook = (cells: unknown[]) => JSON.stringify({ cells });

Deno.test("the output check finds a silent cell, an error and a leaked path", () => {
  const problems = checkExecutedNotebook(
    notebook([
      { cell_type: "markdown", source: "# Title" },
      { cell_type: "code", source: "const a = 1;", execution_count: 1, outputs: [] },
      { cell_type: "code", source: "const b = 2; // no output", execution_count: 2, outputs: [] },
      {
        cell_type: "code",
        source: ["await show(\n", "x)"],
        execution_count: 3,
        outputs: [{ output_type: "stream", text: ["/home/me/repo/x\n"] }],
      },
      {
        cell_type: "code",
        source: "boom()",
        execution_count: 4,
        outputs: [{ output_type: "error", ename: "ReferenceError", evalue: "boom is not defined" }],
      },
      { cell_type: "code", source: "later()", metadata: { tags: ["no-output"] }, outputs: [] },
    ]),
    { forbidden: ["/home/me/repo/"] },
  );
  assertEquals(problems, [
    'cell 2 (const a = 1;): no output (mark a cell that shows nothing with "// no output")',
    "cell 4 (await show(): output shows the path /home/me/repo/",
    "cell 5 (boom()): ReferenceError: boom is not defined",
    "cell 6 (later()): not executed",
  ]);
});

Deno.test("the output check passes a notebook whose cells all showed something", () => {
  const problems = checkExecutedNotebook(notebook([
    {
      cell_type: "code",
      source: "await show(1)",
      execution_count: 1,
      outputs: [{ output_type: "display_data", data: { "text/plain": "1" } }],
    },
  ]));
  assertStrictEquals(problems.length, 0);
});

Deno.test("notebookModule joins the code cells and remembers where each line came from", () => {
  const { code, origin } = notebookModule(
    notebook([
      { cell_type: "code", source: ['import { a } from "../src/a.ts";\n', "a();"] },
      { cell_type: "markdown", source: "text" },
      { cell_type: "code", source: "const path = '../sessions/x';" },
    ]),
    { rootUrl: "file:///repo/" },
  );
  assertStrictEquals(
    code,
    "import { a } from \"file:///repo/src/a.ts\";\na();\nconst path = 'file:///repo/sessions/x';\n",
  );
  assertEquals(origin, [{ cell: 1, line: 1 }, { cell: 1, line: 2 }, { cell: 3, line: 1 }]);
});

Deno.test({
  ...needing(
    "every chart of the committed notebooks carries a PNG and survives an HTML export",
    NO_JUPYTER,
  ),
  async fn() {
    for (const [name, expected] of Object.entries(EXPECTED)) {
      const path = new URL(`notebooks/${name}`, ROOT);
      const outputs =
        (JSON.parse(await Deno.readTextFile(path)) as { cells: { outputs?: Output[] }[] })
          .cells.flatMap((cell) => cell.outputs ?? []);
      const charts = outputs.filter((output) => output.data?.["image/svg+xml"] !== undefined);
      assertEquals(charts.length, expected.svgCharts, name);
      for (const chart of charts) {
        const png = [chart.data?.["image/png"] ?? ""].flat().join("");
        assert(png.startsWith("iVBORw0KGgo"), `${name}: a chart without its PNG`);
      }
      const html = await new Deno.Command("jupyter", {
        args: ["nbconvert", "--to", "html", "--stdout", path.pathname],
        stdout: "piped",
        stderr: "null",
      }).output();
      assert(html.success, `${name}: nbconvert --to html failed`);
      // Each chart is in the page with its shapes (an exported image/svg+xml keeps only text).
      const page = new TextDecoder().decode(html.stdout);
      const exported = page.split('<div class="turnlog-chart-output">').slice(1);
      assertEquals(exported.length, expected.svgCharts, `${name}: charts in the HTML export`);
      for (const chart of exported) {
        assertMatch(chart.slice(0, chart.indexOf("</svg>")), /<(path|rect|circle|line)\b/);
      }
    }
  },
});
