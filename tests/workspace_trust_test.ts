/**
 * Issue 39, item 2: a workspace taken from another tool's file, another machine or a folder
 * outside the user's home is never used unless the user names it on this run (`--workspace`);
 * `/`, the home folder itself and system folders are refused as workspaces with a clear line;
 * the header says which folder the tools work in and why.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import { said, tempDir } from "./_helpers.ts";
import { TurnlogError } from "../src/errors/mod.ts";
import { recordedWorkspaceDoubt } from "../src/resume/mod.ts";
import { refusedWorkspace, Workspace } from "../src/tools/mod.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";

const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));
const cliPath = (name: string) => fileURLToPath(new URL(`../cli/${name}.ts`, import.meta.url));

Deno.test("refusedWorkspace() refuses /, the home folder, system folders and everyone's folders", () => {
  const home = "/home/ada";
  assertEquals(refusedWorkspace("/", home), "it is the root of the file system");
  assertEquals(refusedWorkspace("/home/ada", home), "it is your home folder");
  for (const system of ["/etc", "/usr/bin", "/proc/self", "/sys", "/bin", "/var/../etc"]) {
    assertMatch(refusedWorkspace(system, home) ?? "", /^it is a system folder \(/, system);
  }
  for (const shared of ["/home", "/var", "/usr", "/tmp"]) {
    assertEquals(
      refusedWorkspace(shared, home),
      "it holds the files of the whole system or of every user",
    );
  }
  for (const fine of ["/home/ada/src/app", "/tmp/build", "/var/www/site", "/srv/app"]) {
    assertEquals(refusedWorkspace(fine, home), undefined, fine);
  }
});

Deno.test("Workspace.open() refuses / with a line that says why and what to give", async () => {
  const error = await assertRejects(() => Workspace.open("/"), TurnlogError);
  assertEquals(error.kind, "workspace");
  assertEquals(
    error.message,
    "Workspace / is refused: it is the root of the file system; give the project's own folder " +
      "with --workspace",
  );
  await assertRejects(() => Workspace.open("/etc"), TurnlogError, "it is a system folder (/etc)");
});

Deno.test("recordedWorkspaceDoubt() trusts a recorded folder inside the home only, and never an imported one", () => {
  const home = "/home/ada";
  assertEquals(recordedWorkspaceDoubt({ cwd: "/home/ada/app" }, home), undefined);
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/home/adam/app" }, home),
    "is outside your home folder",
  );
  assertEquals(recordedWorkspaceDoubt({ cwd: "/" }, home), "is outside your home folder");
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/home/ada/app", importedFrom: {} }, home),
    "came from another tool's file",
  );
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/home/ada/app" }, undefined),
    "cannot be told to be in your home (HOME is unset)",
  );
});

Deno.test("recordedWorkspaceDoubt() trusts a recorded folder inside the current one, unless the current one is refused", () => {
  const home = "/home/ada";
  assertEquals(recordedWorkspaceDoubt({ cwd: "/work/clone/demo" }, home, "/work/clone"), undefined);
  assertEquals(recordedWorkspaceDoubt({ cwd: "/work/clone" }, home, "/work/clone"), undefined);
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/work/clone/demo" }, undefined, "/work/clone"),
    undefined,
  );
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/work/other" }, home, "/work/clone"),
    "is outside your home folder",
  );
  for (const here of ["/", "/etc", home]) {
    assertEquals(
      recordedWorkspaceDoubt({ cwd: `${here === "/" ? "" : here}/app` }, home, here),
      here === home ? undefined : "is outside your home folder",
      here,
    );
  }
  assertEquals(
    recordedWorkspaceDoubt({ cwd: "/work/clone/demo", importedFrom: {} }, home, "/work/clone"),
    "came from another tool's file",
  );
});

/** Runs a command of the CLI with `env`, in `cwd`. */
function run(
  script: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string },
) {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", `--config=${CONFIG}`, "-A", cliPath(script), ...args],
    env: {
      NO_COLOR: "1",
      OPENAI_API_KEY: "",
      OPENAI_BASE_URL: "",
      OPENAI_MODEL: "",
      // The tests move HOME; Deno's cache stays where it is.
      DENO_DIR: Deno.env.get("DENO_DIR") ?? join(Deno.env.get("HOME") ?? "", ".cache", "deno"),
      ...options.env,
    },
    cwd: options.cwd,
    stdin: "null",
  }).output().then(said);
}

Deno.test("resume of an imported Codex session rooted at /: its tools work in the current folder, never in /", async () => {
  await using dir = await tempDir();
  const project = join(dir.path, "project");
  await Deno.mkdir(project);
  await Deno.writeTextFile(join(project, "mine.txt"), "the user's own file\n");
  const rollout = join(dir.path, "rollout-2026-02-23T12-00-00-019c8a4c.jsonl");
  await Deno.writeTextFile(
    rollout,
    new CodexRolloutBuilder().meta({ cwd: "/" }).turnContext({ approval: "never", cwd: "/" })
      .prompt("hello").answer("Hi.").text(),
  );
  const env = { TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"), HOME: join(dir.path, "home") };
  await Deno.mkdir(env.HOME);
  assertEquals((await run("import", [rollout], { env, cwd: project })).code, 0);
  const resumed = await run("resume", ["--last", "--model", "scripted", "list the files"], {
    env,
    cwd: project,
  });
  assertEquals(resumed.code, 0, resumed.stderr);
  assertMatch(
    resumed.stdout,
    new RegExp(
      `\\nworkspace ${project} \\(its tools work here; the session was recorded in /\\): the ` +
        "current folder: the recorded / came from another tool's file, so the tools work there " +
        "only when --workspace names it\\n",
    ),
  );
  assert(resumed.stdout.includes("mine.txt"), "list_dir listed the current folder");
  assert(!/\betc\b/.test(resumed.stdout), "and not the root's folders");
  // Named on this run, the recorded / is still refused: it is no workspace at all.
  const named = await run("resume", ["--last", "--workspace", "/", "list the files"], {
    env,
    cwd: project,
  });
  assertEquals(named.code, 2);
  assertEquals(
    named.stderr.split("\n")[0],
    "turnlog resume: Workspace / is refused: it is the root of the file system; give the " +
      "project's own folder with --workspace",
  );
});

Deno.test("resume of a session recorded inside the home works there again, saying so", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const project = join(home, "project");
  await Deno.mkdir(project, { recursive: true });
  const env = { TURNLOG_SESSIONS_DIR: join(dir.path, "sessions"), HOME: home };
  const first = await run("resume", ["--model", "scripted", "hello"], { env, cwd: project });
  assertEquals(first.code, 0, first.stderr);
  assertMatch(first.stdout, new RegExp(`\\nworkspace ${project}: the current folder\\n`));
  const again = await run("resume", ["--last", "--model", "scripted", "hello again"], {
    env,
    cwd: dir.path,
  });
  assertEquals(again.code, 0, again.stderr);
  assertMatch(
    again.stdout,
    new RegExp(`\\nworkspace ${project}: the folder the session was recorded in\\n`),
  );
});

Deno.test("resume of a session recorded outside the home works there again from a folder that holds it, and not from one that does not", async () => {
  await using dir = await tempDir();
  // Real paths: the temporary folder may be reached through a symlink.
  const root = await Deno.realPath(dir.path);
  const clone = join(root, "clone");
  const project = join(clone, "sessions", "demo-workspace");
  const elsewhere = join(root, "elsewhere");
  await Deno.mkdir(project, { recursive: true });
  await Deno.mkdir(elsewhere);
  const env = { TURNLOG_SESSIONS_DIR: join(root, "sessions"), HOME: join(root, "home") };
  const first = await run("resume", ["--model", "scripted", "hello"], { env, cwd: project });
  assertEquals(first.code, 0, first.stderr);
  const resume = (cwd: string) =>
    run("resume", ["--last", "--model", "scripted", "hello again"], { env, cwd });
  const inside = await resume(clone);
  assertEquals(inside.code, 0, inside.stderr);
  assertMatch(
    inside.stdout,
    new RegExp(`\\nworkspace ${project}: the folder the session was recorded in\\n`),
  );
  const outside = await resume(elsewhere);
  assertEquals(outside.code, 0, outside.stderr);
  assertMatch(
    outside.stdout,
    new RegExp(
      `\\nworkspace ${elsewhere} \\(its tools work here; the session was recorded in ${project}\\): ` +
        `the current folder: the recorded ${project} is outside your home folder, `,
    ),
  );
});
