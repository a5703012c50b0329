/**
 * The real Codex CLI run against the embedded model: a temporary `CODEX_HOME` whose
 * `config.toml` points a provider of its own at the embedded model's Responses wire, a
 * recording front that answers Codex's WebSocket attempt with 426 (so it falls back to HTTP at
 * once) and keeps every request body Codex sent with the answer's status, `codex exec` and
 * `codex exec resume` runs, and a run killed mid-tool (the native process, by its PID).
 *
 * @module
 */
import { join } from "node:path";
import { startEmbeddedModel } from "../../src/embedded_model/mod.ts";
import type { RealClient } from "./install.ts";
import { waitFor } from "../wait.ts";

/** The environment variable Codex reads the embedded model's key from. */
const KEY_VAR = "TURNLOG_EMBEDDED_KEY";

/** One request Codex sent, and how the embedded model answered it. */
export interface SentRequest {
  /** The JSON body. */
  body: Record<string, unknown>;
  /** The HTTP status of the answer (200: accepted). */
  status: number;
  /** The error message of a refused request, else null. */
  error: string | null;
}

/** The embedded model behind a recording front, as Codex's API. */
export interface CodexApi extends AsyncDisposable {
  /** `http://127.0.0.1:PORT/v1`. */
  baseURL: string;
  /** The key Codex must send. */
  apiKey: string;
  /** The model name to ask for. */
  model: string;
  /** Every request received, in order. */
  requests: SentRequest[];
}

/** Starts the embedded model and a recording front on another loopback port. */
export async function startCodexApi(): Promise<CodexApi> {
  const model = await startEmbeddedModel();
  const requests: SentRequest[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.headers.get("upgrade")) return new Response("Upgrade Required", { status: 426 });
    const url = new URL(req.url);
    const text = await req.text();
    const answer = await fetch(`${model.baseURL}${url.pathname.replace(/^\/v1/, "")}`, {
      method: req.method,
      headers: req.headers,
      body: text.length > 0 ? text : null,
    });
    const sent: SentRequest = {
      body: text.length > 0 ? JSON.parse(text) : {},
      status: answer.status,
      error: null,
    };
    requests.push(sent);
    if (answer.ok) return new Response(answer.body, answer);
    const error = await answer.text();
    sent.error = JSON.parse(error)?.error?.message ?? error;
    return new Response(error, answer);
  });
  return {
    baseURL: `http://127.0.0.1:${server.addr.port}/v1`,
    apiKey: model.apiKey,
    model: model.model,
    requests,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      await model.close();
    },
  };
}

/** A temporary Codex home and project folder, wired to an API. */
export interface CodexHome extends AsyncDisposable {
  client: RealClient;
  api: CodexApi;
  /** `CODEX_HOME`. */
  home: string;
  /** The folder Codex runs in (its cwd). */
  work: string;
  /** The folder both live in. */
  base: string;
}

/** A `config.toml` that makes Codex talk to `api` only, with no retries. */
export function codexConfig(api: CodexApi): string {
  return [
    `model_provider = "local"`,
    `model = "${api.model}"`,
    "",
    "[model_providers.local]",
    `name = "local"`,
    `base_url = "${api.baseURL}"`,
    `wire_api = "responses"`,
    `env_key = "${KEY_VAR}"`,
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
  ].join("\n");
}

/** Makes a temporary Codex home for `client` against `api`. */
export async function makeCodexHome(client: RealClient, api: CodexApi): Promise<CodexHome> {
  const base = await Deno.makeTempDir({ prefix: "turnlog-codex-" });
  const home = join(base, "codex-home");
  const work = join(base, "work");
  await Deno.mkdir(home);
  await Deno.mkdir(work);
  await Deno.writeTextFile(join(home, "config.toml"), codexConfig(api));
  return {
    client,
    api,
    home,
    work,
    base,
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

/** What one Codex run printed and how it ended. */
export interface CodexRun {
  code: number;
  /** The `thread.started` id, when it printed one. */
  threadId: string | null;
  /** Its `--json` events. */
  events: Record<string, unknown>[];
  stderr: string;
}

const EXEC_FLAGS = [
  "--skip-git-repo-check",
  "--json",
  "--dangerously-bypass-approvals-and-sandbox",
];

function codexCommand(home: CodexHome, args: string[]): Deno.Command {
  return new Deno.Command(home.client.bin, {
    args,
    cwd: home.work,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { CODEX_HOME: home.home, [KEY_VAR]: home.api.apiKey, NO_COLOR: "1", RUST_LOG: "error" },
  });
}

function runOf(code: number, stdout: string, stderr: string): CodexRun {
  const events = stdout.split("\n").filter((line) => line.startsWith("{")).map((line) =>
    JSON.parse(line) as Record<string, unknown>
  );
  const started = events.find((event) => event.type === "thread.started");
  const threadId = typeof started?.thread_id === "string" ? started.thread_id : null;
  return { code, threadId, events, stderr };
}

async function run(home: CodexHome, args: string[]): Promise<CodexRun> {
  const output = await codexCommand(home, args).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return runOf(output.code, decode(output.stdout), decode(output.stderr));
}

/** `codex exec "<prompt>"`: a new session. */
export function codexExec(home: CodexHome, prompt: string): Promise<CodexRun> {
  return run(home, ["exec", ...EXEC_FLAGS, "-m", home.api.model, prompt]);
}

/** `codex exec resume <thread id> "<prompt>"`: the session continued, in its own file. */
export function codexResume(home: CodexHome, threadId: string, prompt: string): Promise<CodexRun> {
  return run(home, ["exec", "resume", ...EXEC_FLAGS, "-m", home.api.model, threadId, prompt]);
}

/**
 * `codex exec fork <thread id> "<prompt>"`: a new session that starts from the thread's whole
 * history (paginated: in a rollout of its own that names the parent's as its `history_base`).
 */
export function codexFork(home: CodexHome, threadId: string, prompt: string): Promise<CodexRun> {
  return run(home, ["exec", "fork", ...EXEC_FLAGS, "-m", home.api.model, threadId, prompt]);
}

/** The rollout of `threadId` under the home's `sessions/`. */
export async function rolloutPath(home: CodexHome, threadId: string): Promise<string> {
  const found: string[] = [];
  const walk = async (dir: string) => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(`-${threadId}.jsonl`)) found.push(path);
    }
  };
  await walk(join(home.home, "sessions"));
  if (found.length !== 1) {
    throw new Error(`${found.length} rollouts of ${threadId} in ${home.home}`);
  }
  return found[0]!;
}

/** The rollout's records, parsed (a torn line is skipped). */
export async function rolloutRecords(path: string): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    try {
      if (line.length > 0) records.push(JSON.parse(line));
    } catch {
      // A torn line: not a record.
    }
  }
  return records;
}

/** The children (and their children) of a process, from `ps`. */
async function descendants(pid: number): Promise<number[]> {
  const listed = await new Deno.Command("ps", { args: ["-e", "-o", "pid=,ppid="] }).output();
  const parents = new Map<number, number[]>();
  for (const row of new TextDecoder().decode(listed.stdout).trim().split("\n")) {
    const [child, parent] = row.trim().split(/\s+/).map(Number) as [number, number];
    parents.set(parent, [...(parents.get(parent) ?? []), child]);
  }
  const all: number[] = [];
  const visit = (at: number) => {
    for (const child of parents.get(at) ?? []) {
      all.push(child);
      visit(child);
    }
  };
  visit(pid);
  return all;
}

/**
 * `codex exec "<prompt>"` killed with SIGKILL once `calls` function calls are in its rollout
 * and their commands run (npm's launcher execs the native binary, so the PID is Codex's own);
 * the commands it started are killed after it, by PID.
 */
export async function codexKilledMidTool(
  home: CodexHome,
  prompt: string,
  calls: number,
): Promise<{ threadId: string; rollout: string }> {
  const child = codexCommand(home, ["exec", ...EXEC_FLAGS, "-m", home.api.model, prompt]).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let threadId: string | undefined;
  let started = 0;
  while (threadId === undefined || started < calls) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`codex exited before ${calls} commands started:\n${text}`);
    text += value;
    const run = runOf(0, text.slice(0, text.lastIndexOf("\n") + 1), "");
    threadId = run.threadId ?? undefined;
    started = run.events.filter((event) => event.type === "item.started").length;
  }
  const rollout = await waitFor("the calls in the rollout", async () => {
    const path = await rolloutPath(home, threadId!).catch(() => undefined);
    if (path === undefined) return undefined;
    const records = await rolloutRecords(path);
    const written = records.filter((record) => payloadType(record) === "function_call").length;
    return written >= calls && path;
  });
  const commands = await descendants(child.pid);
  child.kill("SIGKILL");
  await child.status;
  for (const pid of commands) {
    try {
      Deno.kill(pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  await reader.cancel();
  await child.stderr.cancel();
  return { threadId, rollout };
}

/** A record's `payload.type`. */
export function payloadType(record: Record<string, unknown>): string | undefined {
  const payload = record.payload as Record<string, unknown> | undefined;
  return typeof payload?.type === "string" ? payload.type : undefined;
}

/** A copy of the whole home beside it, to come back to (Codex's state names files by path). */
export async function snapshotHome(home: CodexHome, name: string): Promise<void> {
  await copyTree(home.home, join(home.base, `snapshot-${name}`));
}

/** Puts the home back as {@linkcode snapshotHome} kept it, at the same path. */
export async function restoreHome(home: CodexHome, name: string): Promise<void> {
  await Deno.remove(home.home, { recursive: true });
  await copyTree(join(home.base, `snapshot-${name}`), home.home);
}

async function copyTree(from: string, to: string): Promise<void> {
  const done = await new Deno.Command("cp", { args: ["-a", from, to] }).output();
  if (!done.success) {
    throw new Error(`cp -a ${from} ${to}: ${new TextDecoder().decode(done.stderr)}`);
  }
}

/** The input items of a request Codex sent. */
export function sentInput(request: SentRequest): Record<string, unknown>[] {
  const input = request.body.input;
  return Array.isArray(input) ? input : [];
}

/**
 * Puts another rollout into the home (named `rollout-<time>-<id>.jsonl`, as Codex finds it),
 * and, for one recorded with the built-in `openai` provider (which a resume keeps and
 * `model_providers` cannot redefine), points that provider at the API with `openai_base_url`
 * and an API-key login.
 *
 * @returns the rollout's path and thread id
 */
export async function placeRollout(
  home: CodexHome,
  text: string,
): Promise<{ rollout: string; threadId: string }> {
  const meta = JSON.parse(text.slice(0, text.indexOf("\n"))).payload;
  const time = String(meta.timestamp).slice(0, 19).replaceAll(":", "-");
  const day = join(home.home, "sessions", ...time.slice(0, 10).split("-"));
  await Deno.mkdir(day, { recursive: true });
  const rollout = join(day, `rollout-${time}-${meta.id}.jsonl`);
  await Deno.writeTextFile(rollout, text);
  if ((meta.model_provider ?? "openai") === "openai") {
    const config = `model = "${home.api.model}"\nopenai_base_url = "${home.api.baseURL}"\n`;
    await Deno.writeTextFile(join(home.home, "config.toml"), config);
    await Deno.writeTextFile(
      join(home.home, "auth.json"),
      JSON.stringify({ OPENAI_API_KEY: home.api.apiKey }),
    );
  }
  return { rollout, threadId: String(meta.id) };
}
