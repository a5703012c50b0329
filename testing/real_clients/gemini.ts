/**
 * The real Gemini CLI (the pinned 0.61.0) run in a temporary home against the embedded model:
 * a prompt run to its end (`-p`, headless), `--resume` of a session, the session files it
 * wrote and the requests it sent, read back. Everything stays on loopback and in the temporary
 * home (`GEMINI_CLI_HOME`): the settings pick the API-key auth, `GOOGLE_GEMINI_BASE_URL` is the
 * embedded model, and `-m` names its model (no auto-router).
 *
 * @module
 */
import { join } from "node:path";
import { type EmbeddedModel, startEmbeddedModel } from "../../src/embedded_model/mod.ts";
import type { RecordedRequest } from "../../src/embedded_model/mod.ts";
import type { RealClient } from "./install.ts";

/** One run of the real Gemini CLI. */
export interface GeminiRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The requests the model got during the run. */
  requests: RecordedRequest[];
}

/** A temporary home for Gemini CLI, with a project folder and the embedded model. */
export class GeminiHome {
  private constructor(
    readonly client: RealClient,
    readonly home: string,
    readonly project: string,
    readonly model: EmbeddedModel,
  ) {}

  /** A fresh home (its settings, a project folder holding `README.md`) and model. */
  static async open(client: RealClient): Promise<GeminiHome> {
    const home = await Deno.makeTempDir({ prefix: "turnlog-gemini-home-" });
    const project = join(home, "project");
    await Deno.mkdir(project);
    await Deno.mkdir(join(home, ".gemini"));
    await Deno.mkdir(join(home, "tmp"));
    await Deno.writeTextFile(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({ security: { auth: { selectedType: "gemini-api-key" } } }),
    );
    await Deno.writeTextFile(join(project, "README.md"), "hello readme\n");
    const model = await startEmbeddedModel({ record: true });
    return new GeminiHome(client, home, project, model);
  }

  /** Where Gemini keeps the sessions of every project: `<home>/.gemini/tmp`. */
  get root(): string {
    return join(this.home, ".gemini", "tmp");
  }

  /** The project's `chats` folder (its short id is the project folder's name). */
  get chats(): string {
    return join(this.root, "project", "chats");
  }

  /** The session files of the project, by name. */
  sessionFiles(): string[] {
    try {
      return [...Deno.readDirSync(this.chats)].filter((e) => e.isFile && e.name.endsWith(".jsonl"))
        .map((e) => join(this.chats, e.name)).sort();
    } catch {
      return [];
    }
  }

  /** The environment: loopback only, the temporary home, nothing sent elsewhere. */
  env(): Record<string, string> {
    return {
      HOME: this.home,
      GEMINI_CLI_HOME: this.home,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      TMPDIR: join(this.home, "tmp"),
      GEMINI_API_KEY: this.model.apiKey,
      GOOGLE_GEMINI_BASE_URL: this.model.geminiBaseURL,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      NO_COLOR: "1",
    };
  }

  /** Runs `gemini -p <prompt>` (with `--resume <which>` when given) to its end. */
  async run(prompt: string, options: { resume?: string } = {}): Promise<GeminiRun> {
    const before = this.model.requests.length;
    const args = ["-m", this.model.model, "-p", prompt, "-o", "text"];
    if (options.resume !== undefined) args.push("--resume", options.resume);
    const output = await new Deno.Command(this.client.bin, {
      args,
      cwd: this.project,
      env: this.env(),
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
    return {
      code: output.code,
      stdout: decode(output.stdout),
      stderr: decode(output.stderr),
      requests: this.model.requests.slice(before),
    };
  }

  /** Stops the model and removes the home. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.model.close();
    await Deno.remove(this.home, { recursive: true });
  }
}

/** The function call and response parts of a request's contents, as `role: kind name` lines. */
export function functionParts(request: RecordedRequest): string[] {
  // deno-lint-ignore no-explicit-any
  const contents = (request.body as any)?.contents ?? [];
  // deno-lint-ignore no-explicit-any
  return contents.flatMap((content: any) =>
    // deno-lint-ignore no-explicit-any
    (content.parts ?? []).flatMap((part: any) =>
      part.functionCall
        ? [`${content.role}: call ${part.functionCall.name}`]
        : part.functionResponse
        ? [`${content.role}: response ${part.functionResponse.name}`]
        : []
    )
  );
}
