/**
 * The tools a run offers the model, confined to a workspace folder: `list_dir`, `read_file`,
 * `search_text`, `write_file` (the one that changes something) and `slow_task` (an abortable
 * wait, so an interruption can be shown). A tool never throws at the model: bad arguments, a
 * path outside the workspace or a failure become an error output.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { z } from "zod";
import { dirname, join } from "node:path";
import { readFull } from "../io/mod.ts";
import { firstIssue } from "../record/mod.ts";
import { clipWithNote } from "../text/mod.ts";
import { OutsideWorkspaceError, Workspace } from "./_workspace.ts";

export { OutsideWorkspaceError, Workspace } from "./_workspace.ts";

/** Outputs longer than this many characters are cut, with a note saying so. */
export const OUTPUT_LIMIT = 16 * 1024;

/** What a tool call produced: the text the model sees, and whether it is an error. */
export interface ToolResult {
  output: string;
  isError: boolean;
}

/** A tool as the model is told about it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/** A tool: its definition, whether it changes anything, and how it runs. */
export interface Tool extends ToolDefinition {
  /** True for a tool that changes something (asks for approval under "ask-changes"). */
  changes: boolean;
  run(args: unknown, context: ToolContext): Promise<ToolResult>;
}

/** What a running tool gets besides its arguments. */
export interface ToolContext {
  workspace: Workspace;
  signal: AbortSignal;
}

/** A tool call was cancelled (its run's AbortSignal fired). */
export class ToolCancelledError extends TurnlogError {
  constructor(message = "The tool call was cancelled", options?: ErrorOptions) {
    super("cancelled", message, options);
    this.name = "ToolCancelledError";
  }
}

/** Cuts `text` to {@linkcode OUTPUT_LIMIT} characters with a note saying how much was left out. */
export function truncateOutput(text: string, limit = OUTPUT_LIMIT): string {
  return clipWithNote(
    text,
    limit,
    (length) => `[output truncated: showing the first ${limit} of ${length} characters]`,
  );
}

function defineTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  schema: S;
  changes: boolean;
  run(args: z.infer<S>, context: ToolContext): Promise<ToolResult>;
}): Tool {
  const { $schema: _, ...parameters } = z.toJSONSchema(spec.schema) as Record<string, unknown>;
  return {
    name: spec.name,
    description: spec.description,
    parameters,
    changes: spec.changes,
    run: async (args, context) => {
      const parsed = spec.schema.safeParse(args);
      if (!parsed.success) {
        return error(`Invalid arguments for ${spec.name}: ${firstIssue(parsed.error, "invalid")}`);
      }
      return await spec.run(parsed.data, context);
    },
  };
}

const ok = (output: string): ToolResult => ({ output: truncateOutput(output), isError: false });
const error = (message: string): ToolResult => ({ output: `Error: ${message}`, isError: true });

const SKIPPED_DIRS = new Set([".git", "node_modules", ".denow"]);
const MAX_MATCHES = 100;
const MAX_SEARCH_FILE_BYTES = 1024 * 1024;

async function* walkFiles(dir: string): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    // Symlinks are not followed, so a search never leaves the workspace.
    if (entry.isSymlink) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!SKIPPED_DIRS.has(entry.name)) yield* walkFiles(path);
    } else if (entry.isFile) {
      yield path;
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ToolCancelledError());
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new ToolCancelledError());
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** `list_dir`: the entries of a workspace folder, folders with a trailing `/`. */
export const listDirTool: Tool = defineTool({
  name: "list_dir",
  description:
    'List the entries of a folder in the workspace ("." is the workspace itself). Folders end with "/".',
  schema: z.object({ path: z.string().describe('Workspace-relative folder, "." for the root') }),
  changes: false,
  run: async ({ path }, { workspace }) => {
    const dir = await workspace.resolve(path);
    const info = await Deno.stat(dir);
    if (!info.isDirectory) return error(`${path} is not a folder`);
    const names: string[] = [];
    for await (const entry of Deno.readDir(dir)) {
      names.push(entry.isDirectory ? `${entry.name}/` : entry.name);
    }
    names.sort((a, b) => a.localeCompare(b));
    return ok(names.length === 0 ? "(empty folder)" : names.join("\n"));
  },
});

/** `read_file`: a text file of the workspace, cut at the output limit. */
export const readFileTool: Tool = defineTool({
  name: "read_file",
  description: "Read a text file in the workspace.",
  schema: z.object({ path: z.string().describe("Workspace-relative file path") }),
  changes: false,
  run: async ({ path }, { workspace }) => {
    const file = await workspace.resolve(path);
    const info = await Deno.stat(file);
    if (!info.isFile) return error(`${path} is not a file`);
    using handle = await Deno.open(file, { read: true });
    const bytes = new Uint8Array(Math.min(info.size, OUTPUT_LIMIT * 4));
    const at = await readFull(handle, bytes);
    const text = new TextDecoder().decode(bytes.subarray(0, at));
    if (text.includes("\0")) return error(`${path} is a binary file, not text`);
    if (at < info.size || text.length > OUTPUT_LIMIT) {
      return {
        output: `${text.slice(0, OUTPUT_LIMIT)}\n[output truncated: showing the first ${
          Math.min(text.length, OUTPUT_LIMIT)
        } characters of a ${info.size}-byte file]`,
        isError: false,
      };
    }
    return ok(text);
  },
});

/** `search_text`: lines containing a literal text, as `file:line: text`. */
export const searchTextTool: Tool = defineTool({
  name: "search_text",
  description:
    "Search the workspace's text files for a literal text (case-sensitive). Results are `file:line: text`.",
  schema: z.object({
    pattern: z.string().min(1).describe("The literal text to find"),
    path: z.string().optional().describe('Folder or file to search, default "."'),
  }),
  changes: false,
  run: async ({ pattern, path }, { workspace, signal }) => {
    const start = await workspace.resolve(path ?? ".");
    const info = await Deno.stat(start);
    const files = info.isDirectory ? walkFiles(start) : (async function* () {
      yield start;
    })();
    const matches: string[] = [];
    let more = false;
    search: for await (const file of files) {
      if (signal.aborted) throw new ToolCancelledError();
      const stat = await Deno.stat(file);
      if (stat.size > MAX_SEARCH_FILE_BYTES) continue;
      const text = new TextDecoder().decode(await Deno.readFile(file));
      if (text.includes("\0")) continue;
      const lines = text.split("\n");
      for (let i = 0; i < lines.length; i++) {
        const line = lines[i]!;
        if (!line.includes(pattern)) continue;
        if (matches.length === MAX_MATCHES) {
          more = true;
          break search;
        }
        const shown = line.length > 200 ? `${line.slice(0, 199)}…` : line;
        matches.push(`${workspace.relativePath(file)}:${i + 1}: ${shown.trimEnd()}`);
      }
    }
    if (matches.length === 0) return ok(`No matches for ${JSON.stringify(pattern)}`);
    if (more) matches.push(`[search stopped after ${MAX_MATCHES} matches]`);
    return ok(matches.join("\n"));
  },
});

/** `write_file`: creates or replaces a text file (creating its folders): a change. */
export const writeFileTool: Tool = defineTool({
  name: "write_file",
  description:
    "Create or replace a text file in the workspace (folders are created as needed). This changes the workspace.",
  schema: z.object({
    path: z.string().describe("Workspace-relative file path"),
    content: z.string().describe("The whole new content of the file"),
  }),
  changes: true,
  run: async ({ path, content }, { workspace }) => {
    const file = await workspace.resolve(path);
    let existed = true;
    try {
      const info = await Deno.stat(file);
      if (!info.isFile) return error(`${path} exists and is not a file`);
    } catch (e) {
      if (!(e instanceof Deno.errors.NotFound)) throw e;
      existed = false;
    }
    await Deno.mkdir(dirname(file), { recursive: true });
    const bytes = new TextEncoder().encode(content);
    await Deno.writeFile(file, bytes);
    return ok(
      `Wrote ${bytes.length} bytes to ${workspace.relativePath(file)} (${
        existed ? "replaced" : "created"
      })`,
    );
  },
});

/** The longest wait `slow_task` accepts. */
export const SLOW_TASK_MAX_SECONDS = 600;

/** `slow_task`: waits, abortably; it exists so that an interrupted tool call can be shown. */
export const slowTaskTool: Tool = defineTool({
  name: "slow_task",
  description:
    "Wait the given number of seconds, then report done. Changes nothing; it stands for a long-running job.",
  schema: z.object({
    seconds: z.number().min(0).max(SLOW_TASK_MAX_SECONDS).describe("How long to work"),
    label: z.string().optional().describe("What the task is"),
  }),
  changes: false,
  run: async ({ seconds, label }, { signal }) => {
    await sleep(seconds * 1000, signal);
    const name = label === undefined ? "slow_task" : `slow_task ${JSON.stringify(label)}`;
    return ok(`${name} finished after ${seconds} seconds`);
  },
});

/** Every workspace tool, in the order the model is told about them. */
export const WORKSPACE_TOOLS: readonly Tool[] = [
  listDirTool,
  readFileTool,
  searchTextTool,
  writeFileTool,
  slowTaskTool,
];

/** A tool call to run: the tool's name and the JSON arguments string the model sent. */
export interface ToolCallRequest {
  name: string;
  arguments: string;
}

/** The tools of one run over one workspace. */
export class ToolSet {
  readonly workspace: Workspace;
  readonly tools: readonly Tool[];

  constructor(workspace: Workspace, tools: readonly Tool[] = WORKSPACE_TOOLS) {
    this.workspace = workspace;
    this.tools = tools;
  }

  /** Opens `dir` as the workspace of the standard tools. */
  static async open(dir: string, tools?: readonly Tool[]): Promise<ToolSet> {
    return new ToolSet(await Workspace.open(dir), tools);
  }

  /** The tool with this name, if any. */
  get(name: string): Tool | undefined {
    return this.tools.find((tool) => tool.name === name);
  }

  /** What the model is told about the tools. */
  get definitions(): ToolDefinition[] {
    return this.tools.map(({ name, description, parameters }) => ({
      name,
      description,
      parameters,
    }));
  }

  /**
   * Runs a call. It never throws: an unknown tool, arguments that are not JSON, a path
   * outside the workspace or a failing tool become an error output.
   *
   * @throws {ToolCancelledError} only when `signal` fired while the tool ran
   */
  async run(call: ToolCallRequest, signal: AbortSignal): Promise<ToolResult> {
    const tool = this.get(call.name);
    if (!tool) {
      return error(
        `Unknown tool ${JSON.stringify(call.name)}; the tools are ${
          this.tools.map((t) => t.name).join(", ")
        }`,
      );
    }
    let args: unknown;
    try {
      args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
    } catch (e) {
      return error(
        `The arguments of ${call.name} are not valid JSON (${(e as Error).message}): ${
          JSON.stringify(call.arguments.slice(0, 200))
        }`,
      );
    }
    try {
      return await tool.run(args, { workspace: this.workspace, signal });
    } catch (e) {
      if (e instanceof ToolCancelledError) throw e;
      if (signal.aborted) throw new ToolCancelledError(undefined, { cause: e });
      if (e instanceof OutsideWorkspaceError) return error(e.message);
      if (e instanceof Deno.errors.NotFound) {
        return error(`Not found: ${describePath(args)} does not exist in the workspace`);
      }
      if (e instanceof Deno.errors.PermissionDenied) {
        return error(`Permission denied for ${describePath(args)}`);
      }
      return error(`${call.name} failed: ${(e as Error).message ?? String(e)}`);
    }
  }
}

function describePath(args: unknown): string {
  const path = (args as { path?: unknown } | null)?.path;
  return typeof path === "string" ? JSON.stringify(path) : "the path";
}
