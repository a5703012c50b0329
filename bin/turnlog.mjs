#!/usr/bin/env node
// The `turnlog` command of the npm package (`npm install -g turnlog`, `npx turnlog`). It starts
// the pinned Deno (the `deno` npm package, installed beside this one) on this package's
// sources and lock file, with the permission set and flags of the deno.json task named like
// the command (never -A), in the current folder. TURNLOG_INSTALLED tells the program it runs
// installed: its sessions go to the user's data folder and its hints say `turnlog ...`.
import { spawn } from "node:child_process";
import process from "node:process";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const config = join(root, "deno.json");

/**
 * The arguments of Deno for `turnlog <name> ...rest`: `deno run` with the flags, the `cli/`
 * script and the arguments of the deno.json task of that name (as `./denow task <name>` runs
 * it), then `rest`. Any other name (`--help`, `--version`, a typo) goes to cli/turnlog.ts.
 */
function denoArgs([name, ...rest]) {
  const tasks = JSON.parse(readFileSync(config, "utf8")).tasks ?? {};
  const task = typeof name === "string" && Object.hasOwn(tasks, name) ? tasks[name] : undefined;
  const words = (typeof task === "string" ? task : task?.command ?? "").split(/\s+/);
  const at = words.findIndex((word) => /^cli\/[a-z_]+\.ts$/.test(word));
  const configFlag = `--config=${config}`;
  if (words[0] !== "deno" || words[1] !== "run" || at < 0) {
    const help = join(root, "cli", "turnlog.ts");
    return [
      "run",
      "-q",
      "--allow-env=TURNLOG_INSTALLED",
      // Its own code: a command's module is loaded late (src/_late.ts), and Deno asks for it then.
      `--allow-read=${root}`,
      configFlag,
      help,
      ...(name ? [name] : []),
      ...rest,
    ];
  }
  const script = join(root, words[at]);
  return ["run", ...words.slice(2, at), configFlag, script, ...words.slice(at + 1), ...rest];
}

/** The Deno executable of the `deno` npm package. */
function denoExecutable() {
  const require = createRequire(import.meta.url);
  const dir = dirname(require.resolve("deno/package.json"));
  const exe = join(dir, process.platform === "win32" ? "deno.exe" : "deno");
  // Installed with --ignore-scripts, the package has not put its binary in place yet.
  return existsSync(exe) ? exe : require("deno/install_api.cjs").runInstall();
}

function fail(message, hint) {
  process.stderr.write(`turnlog: ${message}\n${hint}\n`);
  process.exit(1);
}

let deno;
try {
  deno = denoExecutable();
} catch (error) {
  fail(
    `no Deno to run on (${error?.message ?? error})`,
    "Install turnlog again with its optional dependency: npm install -g turnlog",
  );
}

const child = spawn(
  deno,
  denoArgs(process.argv.slice(2)),
  {
    stdio: "inherit",
    env: {
      ...process.env,
      TURNLOG_INSTALLED: process.env.npm_command === "exec" ? "npx turnlog" : "turnlog",
      DENO_NO_UPDATE_CHECK: "1",
      // The package.json beside deno.json is npm's; Deno works from deno.json and its lock.
      DENO_NO_PACKAGE_JSON: "1",
    },
  },
);
// Ctrl-C reaches Deno from the terminal itself (it cancels the turn); other signals are passed on.
process.on("SIGINT", () => {});
for (const signal of ["SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on(
  "error",
  (error) => fail(`cannot start ${deno}: ${error.message}`, "Install turnlog again."),
);
child.on("exit", (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
