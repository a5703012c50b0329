/**
 * A turn of the resume CLI run as a real child process and killed with SIGKILL in the middle
 * of a tool call: how the demo, the example sessions, the notebooks and the tests make the
 * crash that resume repairs.
 *
 * @module
 */
import { RunEventSchema } from "../src/runtime/schemas.ts";
import { readRecords } from "../src/history/mod.ts";
import { fileURLToPath } from "node:url";
import { FIXED_CLOCK_ENV } from "../src/record/mod.ts";
import type { RunEvent } from "../src/runtime/mod.ts";

const CLI_PATH = fileURLToPath(new URL("./resume.ts", import.meta.url));
const CONFIG_PATH = fileURLToPath(new URL("../deno.json", import.meta.url));

/** What {@linkcode runKilledTurn} saw. */
export interface KilledTurn {
  /** True when the child was killed mid-tool (false: it ended on its own first). */
  killed: boolean;
  events: RunEvent[];
  /** The call that was running when the child was killed. */
  callId: string | undefined;
  exitSignal: Deno.Signal | null;
}

async function fileHasCall(path: string, callId: string): Promise<boolean> {
  for await (const entry of readRecords(path)) {
    const record = entry.record;
    if (
      record?.type === "response_item" && record.payload.type === "function_call" &&
      record.payload.callId === callId
    ) {
      return true;
    }
  }
  return false;
}

/** Waits until the session file at `path` holds the call, for at most 10 seconds. */
async function untilFileHasCall(path: string, callId: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await fileHasCall(path, callId))) {
    if (Date.now() > deadline) {
      throw new Error(`Timed out after 10000 ms waiting for call ${callId} in ${path}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Under a fixed clock (`TURNLOG_FIXED_CLOCK`), the child's own: an hour later and another seed,
 * so its ids are as reproducible as the parent's and never the same ones.
 */
function childClock(): Record<string, string> {
  const value = Deno.env.get(FIXED_CLOCK_ENV);
  if (!value) return {};
  const [time, seed] = value.split(",");
  const start = new Date(new Date(time ?? "").getTime() + 3_600_000);
  if (Number.isNaN(start.getTime())) return {};
  return { [FIXED_CLOCK_ENV]: `${start.toISOString()},${Number(seed ?? 1) + 1}` };
}

/**
 * Runs a turn of `cli/resume.ts --json` as a real child process on the embedded model and
 * kills it with SIGKILL once a `slow_task` call is persisted and running.
 */
export async function runKilledTurn(options: {
  sessionsDir: string;
  sessionId: string;
  workspace: string;
  message: string;
  onEvent?: (event: RunEvent) => void;
  /** How long the tool runs before the kill, in milliseconds (default 100). */
  settleMs?: number;
}): Promise<KilledTurn> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      `--config=${CONFIG_PATH}`,
      "--allow-read",
      "--allow-write",
      "--allow-env",
      "--allow-net=127.0.0.1",
      "--allow-run",
      CLI_PATH,
      "--session",
      options.sessionId,
      "--sessions-dir",
      options.sessionsDir,
      "--workspace",
      options.workspace,
      "--model",
      "scripted",
      "--json",
      options.message,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", ...childClock() },
  }).spawn();
  const stderr = new Response(child.stderr).text();
  const events: RunEvent[] = [];
  let killed = false;
  let callId: string | undefined;
  let sessionPath: string | undefined;
  const lines = child.stdout.pipeThrough(new TextDecoderStream());
  let buffered = "";
  reading: for await (const chunk of lines) {
    buffered += chunk;
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      const parsed = RunEventSchema.safeParse(JSON.parse(line));
      if (!parsed.success) continue;
      const event = parsed.data;
      events.push(event);
      options.onEvent?.(event);
      if (event.type === "run_started") sessionPath = event.sessionPath;
      if (event.type === "tool_requested" && event.name === "slow_task" && sessionPath) {
        // The call is appended before the event is sent; check the file to be sure, then
        // give the tool a moment to be running.
        const path = sessionPath;
        await untilFileHasCall(path, event.callId);
        await new Promise((r) => setTimeout(r, options.settleMs ?? 100));
        child.kill("SIGKILL");
        killed = true;
        callId = event.callId;
        break reading;
      }
    }
  }
  await lines.cancel().catch(() => {});
  const status = await child.status;
  const errors = await stderr;
  if (!killed && errors.trim()) throw new Error(`The child turn failed: ${errors.trim()}`);
  return { killed, events, callId, exitSignal: status.signal };
}
