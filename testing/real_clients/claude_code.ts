/**
 * The real Claude Code (the pinned 2.1.328) run in a temporary home against the embedded model:
 * a prompt run to its end, a run killed in the middle of a tool, `--resume` of a session file,
 * and the requests it sent, read back. Everything stays on loopback and in the temporary home.
 *
 * @module
 */
import { join } from "node:path";
import { type EmbeddedModel, startEmbeddedModel } from "../../src/embedded_model/mod.ts";
import type { RecordedRequest } from "../../src/embedded_model/mod.ts";
import type { RealClient } from "./install.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A temporary home for Claude Code, with a project folder and the embedded model. */
export class ClaudeHome {
  private constructor(
    readonly client: RealClient,
    readonly home: string,
    readonly project: string,
    readonly model: EmbeddedModel,
  ) {}

  /** A fresh home (`HOME`, `TMPDIR`, a project folder holding `notes.txt`) and model. */
  static async open(client: RealClient): Promise<ClaudeHome> {
    const home = await Deno.makeTempDir({ prefix: "turnlog-claude-home-" });
    const project = join(home, "project");
    await Deno.mkdir(project);
    await Deno.mkdir(join(home, "tmp"));
    await Deno.writeTextFile(join(project, "notes.txt"), "hello\n");
    const model = await startEmbeddedModel({ record: true });
    return new ClaudeHome(client, home, project, model);
  }

  /** Where Claude Code keeps the transcripts of the project folder. */
  get projectDir(): string {
    return join(this.home, ".claude", "projects", this.project.replace(/[^A-Za-z0-9]/g, "-"));
  }

  /** The transcript of a session. */
  transcript(sessionId: string): string {
    return join(this.projectDir, `${sessionId}.jsonl`);
  }

  /** The environment real-clients.md gives: loopback only, nothing sent elsewhere. */
  env(): Record<string, string> {
    return {
      HOME: this.home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TMPDIR: join(this.home, "tmp"),
      ANTHROPIC_BASE_URL: this.model.anthropicBaseURL,
      ANTHROPIC_API_KEY: this.model.apiKey,
      ANTHROPIC_MODEL: this.model.model,
      ANTHROPIC_SMALL_FAST_MODEL: this.model.model,
      ANTHROPIC_DEFAULT_HAIKU_MODEL: this.model.model,
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_AUTO_COMPACT: "1",
      // As root, bypassPermissions needs it ("cannot be used with root/sudo privileges").
      IS_SANDBOX: "1",
    };
  }

  #command(prompt: string, resume: string | undefined): Deno.Command {
    const args = [
      "-p",
      prompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--permission-mode",
      "bypassPermissions",
      "--model",
      this.model.model,
      ...(resume === undefined ? [] : ["--resume", resume]),
    ];
    return new Deno.Command(this.client.bin, {
      args,
      cwd: this.project,
      env: this.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    });
  }

  /**
   * Runs `claude -p <prompt>` (with `--resume <id>` when given) to its end.
   *
   * @returns its session id, its stream-json events, and the requests the model got meanwhile
   */
  async run(prompt: string, options: { resume?: string } = {}): Promise<ClaudeRun> {
    const before = this.model.requests.length;
    const output = await this.#command(prompt, options.resume).output();
    const events = parseEvents(new TextDecoder().decode(output.stdout));
    return {
      code: output.code,
      stderr: new TextDecoder().decode(output.stderr),
      sessionId: sessionIdOf(events) ?? options.resume ?? "",
      events,
      requests: this.model.requests.slice(before),
    };
  }

  /**
   * Runs `claude -p <prompt>` and kills it (SIGKILL, by its process id) once `running` (a
   * command line of one of its child processes, such as `sleep 60`) is seen and the transcript
   * holds the call that runs it (Claude Code writes its transcript a moment after it starts a
   * tool), then kills that tool's processes too, as a crash of the machine would.
   *
   * @returns the session id (the only transcript of the project folder)
   */
  async killMidTool(
    prompt: string,
    running: string,
    options: { resultsWritten?: number; timeoutMs?: number } = {},
  ): Promise<string> {
    const child = this.#command(prompt, undefined).spawn();
    const timeoutMs = options.timeoutMs ?? 90_000;
    const deadline = Date.now() + timeoutMs;
    let tools: { pid: number }[] = [];
    while (Date.now() < deadline) {
      tools = descendants(child.pid).filter((process) => process.args.includes(running));
      const written = this.#written(running);
      const enough = written.calls > 0 && written.results >= (options.resultsWritten ?? 0);
      if (tools.length > 0 && enough) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const all = descendants(child.pid);
    child.kill("SIGKILL");
    for (const { pid } of all) {
      try {
        Deno.kill(pid, "SIGKILL");
      } catch {
        // Gone already.
      }
    }
    await child.output();
    if (tools.length === 0) throw new Error(`${running} never ran within ${timeoutMs} ms`);
    const sessions = [...Deno.readDirSync(this.projectDir)]
      .filter((entry) => entry.isFile && entry.name.endsWith(".jsonl"));
    if (sessions.length !== 1) throw new Error(`${sessions.length} transcripts after the kill`);
    return sessions[0]!.name.replace(/\.jsonl$/, "");
  }

  /**
   * What the project's transcripts hold so far: the tool results, and the calls whose input
   * names `running`.
   */
  #written(running: string): { results: number; calls: number } {
    const written = { results: 0, calls: 0 };
    try {
      for (const entry of Deno.readDirSync(this.projectDir)) {
        if (!entry.name.endsWith(".jsonl")) continue;
        const text = Deno.readTextFileSync(join(this.projectDir, entry.name));
        written.results += text.split('"type":"tool_result"').length - 1;
        written.calls += text.split("\n")
          .filter((line) => line.includes('"type":"tool_use"') && line.includes(running)).length;
      }
    } catch {
      // No transcript yet.
    }
    return written;
  }

  /** Stops the model and removes the home. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.model.close();
    await Deno.remove(this.home, { recursive: true });
  }
}

/** One run of Claude Code. */
export interface ClaudeRun {
  code: number;
  stderr: string;
  sessionId: string;
  /** Its stream-json lines. */
  events: Json[];
  /** The requests the embedded model got during the run, in order. */
  requests: RecordedRequest[];
}

function parseEvents(text: string): Json[] {
  const events: Json[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      events.push(JSON.parse(line));
    } catch {
      // A line cut by a kill.
    }
  }
  return events;
}

function sessionIdOf(events: readonly Json[]): string | undefined {
  const init = events.find((event) => event?.type === "system" && event.subtype === "init");
  return typeof init?.session_id === "string" ? init.session_id : undefined;
}

/** Every process (id, parent, command line), from `ps` (Deno reads `/proc` only with all access). */
function processes(): { pid: number; parent: number; args: string }[] {
  const output = new Deno.Command("ps", { args: ["-eo", "pid=,ppid=,args="], stdout: "piped" })
    .outputSync();
  return new TextDecoder().decode(output.stdout).split("\n").flatMap((line) => {
    const match = /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(line);
    return match ? [{ pid: Number(match[1]), parent: Number(match[2]), args: match[3]! }] : [];
  });
}

/** Every process below `pid`, with its command line. */
function descendants(pid: number): { pid: number; args: string }[] {
  const all = processes();
  const found: { pid: number; args: string }[] = [];
  const walk = (at: number) => {
    for (const child of all.filter((process) => process.parent === at)) {
      found.push(child);
      walk(child.pid);
    }
  };
  walk(pid);
  return found;
}

/** The Messages requests of a run (not other routes). */
export function messageRequests(run: ClaudeRun): RecordedRequest[] {
  return run.requests.filter((request) => request.route === "POST /v1/messages");
}

/** A `tool_result` block Claude Code sent: the call it answers, its text, its error flag. */
export interface SentResult {
  toolUseId: string;
  text: string;
  isError: boolean;
}

/** The text of a `tool_result` block's content: a string, or its text parts joined. */
function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: Json) => typeof part?.text === "string" ? part.text : "").join("");
}

/**
 * The results a transcript holds, by call id, in the file order of their lines (a call answered
 * twice keeps its last text); lines that are not JSON are passed over.
 */
export async function transcriptResults(path: string): Promise<Map<string, string>> {
  const results = new Map<string, string>();
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    let value: Json;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const content = value?.message?.content;
    if (value?.type !== "user" || !Array.isArray(content)) continue;
    for (const block of content) {
      if (block?.type === "tool_result") results.set(block.tool_use_id, resultText(block.content));
    }
  }
  return results;
}

/** The `tool_result` blocks of a request's messages, in order. */
export function sentResults(request: RecordedRequest): SentResult[] {
  const results: SentResult[] = [];
  for (const message of (request.body as Json)?.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block?.type !== "tool_result") continue;
      const text = resultText(block.content);
      results.push({ toolUseId: block.tool_use_id, text, isError: block.is_error === true });
    }
  }
  return results;
}

/** The roles and block kinds of a request's messages, in short: `assistant[tool_use A, ...]`. */
export function requestShape(request: RecordedRequest): string[] {
  return ((request.body as Json)?.messages ?? []).map((message: Json) => {
    const blocks = typeof message.content === "string"
      ? ["text"]
      : message.content.map((block: Json) =>
        block.type === "tool_use"
          ? `tool_use ${block.id}`
          : block.type === "tool_result"
          ? `tool_result ${block.tool_use_id}`
          : block.type
      );
    return `${message.role}[${blocks.join(", ")}]`;
  });
}
