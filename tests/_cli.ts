/** Runs `cli/resume.ts` as a user would, in throwaway folders. */
import { RunEventSchema } from "../src/runtime/schemas.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertEquals } from "./_assert.ts";
import { said } from "./_helpers.ts";
import { run as runInspect } from "../cli/inspect.ts";

const CLI = fileURLToPath(new URL("../cli/resume.ts", import.meta.url));
const INSPECT = fileURLToPath(new URL("../cli/inspect.ts", import.meta.url));
const CONFIG = fileURLToPath(new URL("../deno.json", import.meta.url));

export async function cli(args: string[], cwd?: string, env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG}`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      "--allow-run",
      CLI,
      ...args,
    ],
    stdin: "null",
    env: { NO_COLOR: "1", OPENAI_API_KEY: "", OPENAI_BASE_URL: "", OPENAI_MODEL: "", ...env },
    ...(cwd ? { cwd } : {}),
  }).output();
  return said(output);
}

/** Runs the CLI with `--json`, expecting success, and parses its events. */
export async function cliEvents(args: string[]) {
  const { code, stdout, stderr } = await cli([...args, "--json"]);
  assertEquals(code, 0, stderr);
  return stdout.trim().split("\n").map((line) => RunEventSchema.parse(JSON.parse(line)));
}

export async function folders() {
  const base = await Deno.makeTempDir({ prefix: "turnlog-cli-test-" });
  const sessions = join(base, "sessions");
  const workspace = join(base, "workspace");
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(join(workspace, "notes.txt"), "remember the milk\n");
  return {
    sessions,
    workspace,
    flags: ["--sessions-dir", sessions, "--workspace", workspace],
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

export async function exists(path: string): Promise<boolean> {
  return await Deno.stat(path).then(() => true, () => false);
}

/** What a CLI run printed and exited with. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cli/inspect.ts` as a user would, in a subprocess (stdout is a pipe: no colours). */
export async function inspect(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", INSPECT, ...args],
    env: { NO_COLOR: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** Runs `cli/inspect.ts` in this process (its `run()`), capturing what it writes. */
export async function inspectInProcess(args: string[]): Promise<Ran> {
  let stdout = "";
  let stderr = "";
  const code = await runInspect(args, {
    out: (text) => Promise.resolve(void (stdout += text)),
    err: (text) => Promise.resolve(void (stderr += text)),
  });
  return { code, stdout, stderr };
}
