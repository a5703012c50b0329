/**
 * `./denow task real-clients`: the real-client suite. Installs the pinned Codex CLI, Claude
 * Code and Gemini CLI from npm into a cache folder outside the repository (testing/real_clients/install.ts),
 * or takes the user's own binaries (`--codex-bin PATH`, `--claude-bin PATH`, `--gemini-bin PATH`,
 * or `TURNLOG_CODEX_BIN`, `TURNLOG_CLAUDE_BIN`, `TURNLOG_GEMINI_BIN`), then runs the suites of
 * `tests/real_clients/` (`*_suite.ts`: named so that the main test task, which finds
 * `*_test.ts`, leaves them out), where each tool runs against the embedded model in a temporary
 * home and judges what turnlog reads and repairs. Test names carry the version that really
 * ran; a version other than the pinned one is said in one line at the start. When a tool
 * cannot be had (no registry, no binary), it says so in one line and its tests are reported as
 * ignored, never run anyway; the suite exits 0 then. `--install` only installs them (CI's
 * install step: the main suite compares `usage` with the pinned ccusage). Other arguments go
 * to `deno test` (a suite file, `--filter`).
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { installRealClient, REAL_CLIENTS } from "../testing/real_clients/install.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/** The `--<tool>-bin PATH` flags taken out of the arguments into the variables they set. */
function binFlags(args: string[]): { rest: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const rest: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    const spec = REAL_CLIENTS.find((s) => arg === s.binFlag || arg.startsWith(`${s.binFlag}=`));
    if (spec === undefined) {
      rest.push(arg);
      continue;
    }
    const value = arg.includes("=") ? arg.slice(arg.indexOf("=") + 1) : args[++at];
    if (value === undefined || value === "") {
      console.error(`turnlog real-clients: ${spec.binFlag} needs the path of a binary`);
      console.error(
        `hint: ./denow task real-clients ${spec.binFlag} "$(command -v ${spec.command})"`,
      );
      Deno.exit(2);
    }
    env[spec.binVariable] = value;
    Deno.env.set(spec.binVariable, value);
  }
  return { rest, env };
}

const { rest, env } = binFlags(Deno.args);
for (const spec of REAL_CLIENTS) {
  const client = await installRealClient(spec);
  if (typeof client === "string") {
    console.log(
      `turnlog real-clients: ${spec.package} unavailable, its tests are ignored: ${client}`,
    );
  } else if (client.version !== spec.version) {
    console.log(
      `turnlog real-clients: ${spec.package} ${client.version} (${client.bin}) runs, not the pinned ${spec.version}`,
    );
  }
}
if (rest.includes("--install")) Deno.exit(0);
const suites = [...Deno.readDirSync(`${root}tests/real_clients`)]
  .map((entry) => entry.name).filter((name) => name.endsWith("_suite.ts")).sort()
  .map((name) => `tests/real_clients/${name}`);
const named = rest.some((arg) => arg.endsWith("_suite.ts"));
const args = ["test", "-q", "--parallel", "-P=real-clients", ...(named ? [] : suites), ...rest];
const run = await new Deno.Command(Deno.execPath(), {
  args,
  cwd: root,
  env: { ...Deno.env.toObject(), ...env },
}).spawn().status;
Deno.exit(run.code);
