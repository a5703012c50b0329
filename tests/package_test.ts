/**
 * The npm package as its users get it: packed with `npm pack`, installed with
 * `npm install -g --prefix <temp>`, and run as `<temp>/bin/turnlog` from a folder that is not
 * the repository, with a home of its own (the sessions go to its data folder, never to the
 * current one). Needs npm; the Deno cache of this machine is shared, so nothing is fetched
 * twice.
 *
 * @module
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { type Said, said, tempDir } from "./_helpers.ts";
import { needing } from "./_needs.ts";
import { COMMANDS } from "../cli/turnlog.ts";
import { writeClaudeProject } from "../testing/formats/claude_fixtures.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { CODEX_SESSION_ID } from "../testing/formats/codex_builder.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";

const ROOT = new URL("..", import.meta.url).pathname;

function assertStringIncludes(actual: string, part: string): void {
  assert(actual.includes(part), `expected ${JSON.stringify(part)} in:\n${actual}`);
}
const MIB = 1024 * 1024;

function npmInstalled(): boolean {
  try {
    return new Deno.Command("npm", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

const NO_NPM = npmInstalled() ? undefined : "npm not installed";

/** Runs `command` in `cwd`; with `env`, in that environment only. */
async function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): Promise<Said> {
  return said(
    await new Deno.Command(command, {
      args,
      cwd: options.cwd,
      stdin: "null",
      ...(options.env ? { env: options.env, clearEnv: true } : {}),
    }).output(),
  );
}

/** The files of `cli/turnlog.ts`'s module graph (its lazy commands too), from the root. */
async function moduleFiles(): Promise<string[]> {
  const info = await run(Deno.execPath(), ["info", "--json", "cli/turnlog.ts"], { cwd: ROOT });
  assertEquals(info.code, 0, info.stderr);
  const graph = JSON.parse(info.stdout) as { modules: { specifier: string }[] };
  return graph.modules.flatMap(({ specifier }) =>
    specifier.startsWith("file://") ? [new URL(specifier).pathname.slice(ROOT.length)] : []
  );
}

/** Packs the package into `dir`: the tarball and the files it holds. */
async function pack(dir: string): Promise<{ tarball: string; size: number; files: string[] }> {
  const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], { cwd: ROOT });
  assertEquals(packed.code, 0, packed.stderr);
  const [entry] = JSON.parse(packed.stdout) as {
    filename: string;
    size: number;
    files: { path: string }[];
  }[];
  assert(entry !== undefined, packed.stdout);
  return {
    tarball: join(dir, entry.filename),
    size: entry.size,
    files: entry.files.map(({ path }) => path),
  };
}

Deno.test("turnlog's commands are the deno.json tasks that run a cli/ script", async () => {
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const tasks = Object.entries(config.tasks as Record<string, { command: string }>)
    .filter(([, task]) => /^deno run .* cli\/[a-z_]+\.ts\b/.test(task.command))
    .map(([name]) => name);
  assertEquals(tasks.sort(), Object.keys(COMMANDS).sort());
});

Deno.test("package.json names the version of deno.json and the Deno of ./denow", async () => {
  const pkg = JSON.parse(await Deno.readTextFile(join(ROOT, "package.json")));
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const denow = await Deno.readTextFile(join(ROOT, "denow"));
  assertEquals(pkg.version, config.version);
  assertEquals(pkg.bin, { turnlog: "bin/turnlog.mjs" });
  assertEquals(
    `DENO_VERSION="${pkg.optionalDependencies.deno}"`,
    /DENO_VERSION="[^"]*"/.exec(denow)?.[0],
  );
});

Deno.test({
  ...needing(
    "the packed package installs with npm and its turnlog command works from any folder",
    NO_NPM,
  ),
  async fn(t) {
    await using dir = await tempDir();
    const { tarball, size, files } = await pack(dir.path);
    await t.step("the package holds its sources and nothing else, under 8 MiB", async () => {
      assert(size < 8 * MIB, `${size} bytes packed`);
      for (const file of await moduleFiles()) assert(files.includes(file), `${file} is missing`);
      const stray = files.filter((file) =>
        /^(sessions|bench|notebooks|tests|testing|scripts|\.denow|\.jupyter)\//.test(file) ||
        file.endsWith(".ipynb") || file.endsWith(".jsonl")
      );
      assertEquals(stray, []);
    });

    const prefix = join(dir.path, "prefix");
    const installed = await run("npm", [
      "install",
      "--global",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      // As docs/install.md says: npm 11 warns of deno's postinstall unless it is allowed.
      "--allow-scripts=deno",
      "--loglevel=warn",
      tarball,
    ], { cwd: dir.path });
    assertEquals(installed.code, 0, installed.stderr);
    assert(!installed.stderr.includes("install-scripts"), installed.stderr);

    const home = join(dir.path, "home");
    const work = join(dir.path, "work");
    await Deno.mkdir(work, { recursive: true });
    await Deno.writeTextFile(join(work, "notes.txt"), "Buy milk\n");
    const denoDir = JSON.parse(
      (await run(Deno.execPath(), ["info", "--json"], { cwd: ROOT })).stdout,
    )
      .denoDir as string;
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      DENO_DIR: denoDir,
      NO_COLOR: "1",
    };
    const turnlog = (args: string[], extra: Record<string, string> = {}) =>
      run(join(prefix, "bin", "turnlog"), args, { cwd: work, env: { ...env, ...extra } });
    const data = join(home, ".local", "share", "turnlog", "sessions");

    await t.step(
      "each command's --help speaks of the installed command and points at no docs it lacks",
      async () => {
        for (const command of ["resume", "inspect", "repair", "import", "serve", "search"]) {
          const help = await turnlog([command, "--help"]);
          assertEquals(help.code, 0, help.stderr);
          assert(!/\.\/denow|\.\/sessions/.test(help.stdout), `${command}: ${help.stdout}`);
          const docs = [...help.stdout.matchAll(/docs\/[\w.-]+/g)].map((m) => m[0]);
          assertEquals(docs.filter((doc) => !files.includes(doc)), [], command);
          assertStringIncludes(help.stdout, "~/.local/share/turnlog/sessions");
        }
      },
    );

    await t.step(
      "--help lists the commands, one line each; --version says deno.json's",
      async () => {
        const help = await turnlog(["--help"]);
        assertEquals(help.code, 0, help.stderr);
        assertStringIncludes(help.stdout, "Usage: turnlog <command> [options]");
        for (const command of ["resume", "inspect", "repair", "import", "serve", "search"]) {
          assertMatch(help.stdout, new RegExp(`^  ${command} +\\S.*$`, "m"));
        }
        const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
        assertEquals((await turnlog(["--version"])).stdout, `turnlog ${config.version}\n`);
        const unknown = await turnlog(["frobnicate"]);
        assertEquals(unknown.code, 2);
        assertEquals(
          unknown.stderr,
          'turnlog: unknown command "frobnicate"\nThe commands: turnlog --help\n',
        );
      },
    );

    let sessionId = "";
    await t.step("resume on the embedded model works in the current folder", async () => {
      const first = await turnlog(["resume", "list the files"]);
      assertEquals(first.code, 0, first.stderr);
      assertStringIncludes(first.stdout, `workspace ${work}: the current folder\n`);
      assertStringIncludes(first.stdout, "notes.txt");
      sessionId = /New session (\S+)/.exec(first.stdout)?.[1] ?? "";
      assertMatch(
        first.stdout,
        new RegExp(`Records  0 before → 8 after  ${data}/\\S+-${sessionId}\\.jsonl`),
      );
      assertMatch(
        first.stdout,
        /Continue turnlog resume --session [0-9a-f]{8} "your next message"/,
      );
      assertEquals([...Deno.readDirSync(work)].map((entry) => entry.name), ["notes.txt"]);
    });

    await t.step("resume --last continues it, from the data folder", async () => {
      const next = await turnlog(["resume", "--last", "read notes.txt"]);
      assertEquals(next.code, 0, next.stderr);
      assertStringIncludes(next.stdout, `Resuming session ${sessionId}`);
      assertStringIncludes(next.stdout, "Buy milk");
      assertMatch(next.stdout, /Records {2}8 before → 1\d after/);
      const listed = await turnlog(["inspect"]);
      assertEquals(listed.code, 0, listed.stderr);
      assertStringIncludes(listed.stdout, `Sessions in ${data}, newest first`);
      assertStringIncludes(listed.stdout, "Inspect one: turnlog inspect <id prefix>");
    });

    await t.step("search finds the session by what was said in it", async () => {
      const found = await turnlog(["search", "milk"]);
      assertEquals(found.code, 0, found.stderr);
      assertStringIncludes(found.stdout, sessionId.slice(0, 8));
      assertStringIncludes(found.stdout, "tool output: Buy **milk**");
      assertMatch(found.stdout, /turnlog inspect \S*[0-9a-f]{8}/);
      const none = await turnlog(["search", "zebra"]);
      assertEquals(none.code, 1, none.stdout + none.stderr);
    });

    await t.step("XDG_DATA_HOME and TURNLOG_SESSIONS_DIR move the sessions", async () => {
      const xdg = join(dir.path, "xdg");
      const moved = await turnlog(["resume", "list the files"], { XDG_DATA_HOME: xdg });
      assertEquals(moved.code, 0, moved.stderr);
      assertStringIncludes(moved.stdout, ` ${xdg}/turnlog/sessions/`);
      const named = join(dir.path, "named");
      const there = await turnlog(["resume", "list the files"], { TURNLOG_SESSIONS_DIR: named });
      assertStringIncludes(there.stdout, ` ${named}/`);
    });

    await t.step("inspect --claude reads a Claude Code home; import continues it", async () => {
      await writeClaudeProject(join(home, ".claude", "projects"));
      const listed = await turnlog(["inspect", "--claude"]);
      assertEquals(listed.code, 0, listed.stderr);
      assertStringIncludes(listed.stdout, `Claude Code sessions in ${home}/.claude/projects`);
      assertStringIncludes(listed.stdout, CLAUDE_SESSION_ID.slice(0, 8));
      assertStringIncludes(listed.stdout, "Inspect one: turnlog inspect --claude <id prefix>");
      const shown = await turnlog(["inspect", "--claude", CLAUDE_SESSION_ID.slice(0, 8)]);
      assertStringIncludes(shown.stdout, "Explore the code with a subagent");
      const imported = await turnlog(["import", "--claude", CLAUDE_SESSION_ID.slice(0, 8)]);
      assertEquals(imported.code, 0, imported.stderr);
      assertStringIncludes(imported.stdout, `\n  ${data}/`);
      assertMatch(imported.stdout, /Continue it: turnlog resume --session [0-9a-f-]{8,} /);
    });

    await t.step("inspect --codex reads a Codex CLI home", async () => {
      const day = join(home, ".codex", "sessions", "2026", "02", "23");
      await Deno.mkdir(day, { recursive: true });
      await Deno.writeTextFile(
        join(day, `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`),
        codexTurnIds(),
      );
      const listed = await turnlog(["inspect", "--codex"]);
      assertEquals(listed.code, 0, listed.stderr);
      assertStringIncludes(listed.stdout, `Codex sessions in ${home}/.codex/sessions`);
      assertStringIncludes(listed.stdout, CODEX_SESSION_ID.slice(0, 8));
      assertStringIncludes(listed.stdout, "Inspect one: turnlog inspect --codex <id prefix>");
    });

    await t.step("repair says what it would do to a session file", async () => {
      const [file] = [...Deno.readDirSync(join(home, ".claude", "projects", "-work-project"))]
        .filter((entry) => entry.name === `${CLAUDE_SESSION_ID}.jsonl`);
      assert(file !== undefined);
      const path = join(home, ".claude", "projects", "-work-project", file.name);
      const repaired = await turnlog(["repair", path]);
      assertEquals(repaired.code, 0, repaired.stdout + repaired.stderr);
    });

    await t.step("serve serves the session browser on loopback", async () => {
      const child = new Deno.Command(join(prefix, "bin", "turnlog"), {
        args: ["serve", "--port", "0"],
        cwd: work,
        env,
        clearEnv: true,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      const stderr = new Response(child.stderr).text();
      // Read to the end, so that serve never writes into a closed pipe.
      let seen = "";
      const listening = Promise.withResolvers<string>();
      const read = (async () => {
        for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
          seen += chunk;
          const base = /browse the sessions: (http:\/\/\S+?)\/\n/.exec(seen)?.[1];
          if (base !== undefined) listening.resolve(base);
        }
        listening.reject(new Error(`serve ended: ${seen}${await stderr}`));
      })();
      try {
        const base = await listening.promise;
        assertStringIncludes(seen, `sessions: ${data}`);
        const page = await fetch(`${base}/`);
        assertEquals(page.status, 200);
        assertStringIncludes(await page.text(), sessionId.slice(0, 8));
      } finally {
        // The launcher passes SIGTERM on to Deno.
        child.kill("SIGTERM");
        await child.status;
        await read.catch(() => {});
      }
    });
  },
});
