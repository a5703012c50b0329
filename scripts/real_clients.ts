/**
 * `./denow task real-clients`: the real-client suite. Installs the pinned Codex CLI, Claude
 * Code and Gemini CLI from npm into a cache folder outside the repository (testing/real_clients/install.ts),
 * then runs the suites of `tests/real_clients/` (`*_suite.ts`: named so that the main test task,
 * which finds `*_test.ts`, leaves them out), where each tool runs against the embedded model in a
 * temporary home and judges what turnlog reads and repairs. When a tool cannot be had (no
 * registry, no binary), it says so in one line and its tests are reported as ignored; the
 * suite exits 0 then.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { installRealClient, REAL_CLIENTS } from "../testing/real_clients/install.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

for (const spec of REAL_CLIENTS) {
  const client = await installRealClient(spec);
  if (typeof client === "string") {
    console.log(`turnlog real-clients: ${spec.package}@${spec.version} unavailable: ${client}`);
  }
}
const suites = [...Deno.readDirSync(`${root}tests/real_clients`)]
  .map((entry) => entry.name).filter((name) => name.endsWith("_suite.ts")).sort()
  .map((name) => `tests/real_clients/${name}`);
const args = ["test", "-q", "--parallel", "-P=real-clients", ...suites, ...Deno.args];
const run = await new Deno.Command(Deno.execPath(), { args, cwd: root }).spawn().status;
Deno.exit(run.code);
