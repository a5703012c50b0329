/**
 * How a command's process ends (cli/_output.ts): with the code its command returned, once the
 * event loop is idle, or at once when the command said nothing of it runs on.
 *
 * @module
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";

const OUTPUT = new URL("../cli/_output.ts", import.meta.url).href;

/** Runs a process whose command leaves a 60 s timer behind, saying `endsWhenDone()` or not. */
async function runWithTimer(ends: boolean, timeoutMs: number) {
  await using dir = await tempDir();
  const script = join(dir.path, "command.ts");
  await Deno.writeTextFile(
    script,
    `import { endsWhenDone, runAsProcess, stdout } from ${JSON.stringify(OUTPUT)};
await runAsProcess(async () => {
  setTimeout(() => stdout("the timer ran\\n"), 60_000);
  stdout("done\\n");
  ${ends ? "endsWhenDone();" : ""}
  return 3;
});
`,
  );
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "--no-config", script],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const output = await child.output();
  clearTimeout(timer);
  return {
    code: output.code,
    signal: output.signal,
    stdout: new TextDecoder().decode(output.stdout),
  };
}

Deno.test("endsWhenDone() ends the process at once with the command's code, its output written", async () => {
  const started = performance.now();
  const ended = await runWithTimer(true, 30_000);
  assertEquals(ended, { code: 3, signal: null, stdout: "done\n" });
  assert(performance.now() - started < 30_000, "the process waited for the timer");
});

Deno.test("runAsProcess() without endsWhenDone() waits for what the command left running", async () => {
  // The timer keeps the process alive past 3 s: it is killed there, the timer not yet run.
  const ended = await runWithTimer(false, 3_000);
  assertEquals(ended, { code: 137, signal: "SIGKILL", stdout: "done\n" });
});
