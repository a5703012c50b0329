/**
 * Every command the README and docs/ show in a `sh` block runs as written, in order, in a fresh
 * copy of the repository (the files git knows, as on a fresh clone) and exits 0. A command that
 * cannot run here is reported as an ignored test saying why: the test suite itself, the long
 * benchmark, the server (it runs until stopped; its tests start it), and the notebooks without
 * Jupyter. Blocks marked `text` are shown, not run (an API key, a server of one's own); the docs
 * that have no `sh` block at all are listed, so one that loses its commands is noticed.
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The commands of a Markdown file's `sh` blocks, one per line, with their line numbers. */
export function shellCommands(markdown: string): { line: number; command: string }[] {
  const commands: { line: number; command: string }[] = [];
  let inSh = false;
  markdown.split("\n").forEach((text, index) => {
    if (text.startsWith("```")) {
      inSh = !inSh && text.trim() === "```sh";
      return;
    }
    if (inSh && text.trim() !== "" && !text.trim().startsWith("#")) {
      commands.push({ line: index + 1, command: text.trim() });
    }
  });
  return commands;
}

function hasJupyter(): boolean {
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

const JUPYTER = hasJupyter();

/** Why a documented command is not run here, or undefined to run it. */
function skipReason(command: string): string | undefined {
  if (/^\.\/denow task test\b/.test(command)) return "it is this test suite";
  if (/^\.\/denow task bench(\s|$)/.test(command)) return "the full benchmark takes minutes";
  if (/^\.\/denow task serve\b/.test(command)) return "it serves until stopped";
  if (/^\.\/denow task notebooks\b/.test(command) && !JUPYTER) {
    return "Jupyter is not installed (apt-get install jupyter-nbconvert)";
  }
  return undefined;
}

/** A copy of the repository as a fresh clone has it: the files git tracks or would add. */
async function freshCopy(): Promise<string> {
  const listed = await new Deno.Command("git", {
    args: ["ls-files", "--cached", "--others", "--exclude-standard", "-z"],
    cwd: ROOT,
    stdout: "piped",
  }).output();
  const files = new TextDecoder().decode(listed.stdout).split("\0").filter((f) => f !== "");
  const copy = await Deno.makeTempDir({ prefix: "turnlog-docs-" });
  for (const file of files) {
    const from = join(ROOT, file);
    if (!(await Deno.stat(from).then((info) => info.isFile, () => false))) continue;
    await Deno.mkdir(dirname(join(copy, file)), { recursive: true });
    await Deno.copyFile(from, join(copy, file));
  }
  return copy;
}

const ENV = {
  PATH: `${dirname(Deno.execPath())}:${Deno.env.get("PATH") ?? ""}`,
  NO_COLOR: "1",
  OPENAI_API_KEY: "",
  OPENAI_BASE_URL: "",
  OPENAI_MODEL: "",
  TURNLOG_SESSIONS_DIR: "",
  TURNLOG_FIXED_CLOCK: "",
};

const DOCS = [
  "README.md",
  ...[...Deno.readDirSync(join(ROOT, "docs"))].map((entry) => `docs/${entry.name}`)
    .filter((name) => name.endsWith(".md")).sort(),
];

/** The docs that show no command to run (their commands need what tests lack: `text` blocks). */
const WITHOUT_COMMANDS = [
  "docs/formats.md",
  "docs/layout.md",
  "docs/many-machines.md",
  "docs/other-tools.md",
  "docs/reliability.md",
  "docs/runtime.md",
  "docs/serving.md",
];

const COMMANDS = new Map(
  DOCS.map((doc) => [doc, shellCommands(Deno.readTextFileSync(join(ROOT, doc)))]),
);

Deno.test("docs: the docs without a sh block are the ones listed as such", () => {
  const without = DOCS.filter((doc) => COMMANDS.get(doc)!.length === 0);
  assertEquals(without, WITHOUT_COMMANDS);
});

for (const [doc, commands] of COMMANDS) {
  if (commands.length === 0) continue;
  // A command that cannot run here is a test of its own, reported as ignored, saying why.
  for (const { line, command } of commands) {
    const skip = skipReason(command);
    if (skip === undefined) continue;
    Deno.test({
      name: `docs: ${doc}:${line}: ${command} [not run: ${skip}]`,
      ignore: true,
      fn() {},
    });
  }
  Deno.test(`docs: every command in ${doc} runs as written`, async () => {
    const copy = await freshCopy();
    try {
      for (const { line, command } of commands) {
        if (skipReason(command) !== undefined) continue;
        const run = await new Deno.Command("sh", {
          args: ["-c", command],
          cwd: copy,
          env: ENV,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const said = new TextDecoder().decode(run.stderr) + new TextDecoder().decode(run.stdout);
        assertEquals(run.code, 0, `${doc}:${line}: ${command}\n${said.slice(-2000)}`);
      }
    } finally {
      await Deno.remove(copy, { recursive: true });
    }
  });
}

Deno.test("shellCommands: only sh blocks, one command a line, comments and blank lines left out", () => {
  const markdown = "text\n```sh\n./denow task a  # note\n\n# a comment\n./denow task b\n```\n" +
    "```text\n./denow task c\n```\n```ts\nconst x = 1;\n```\n";
  assertEquals(shellCommands(markdown), [
    { line: 3, command: "./denow task a  # note" },
    { line: 6, command: "./denow task b" },
  ]);
});
