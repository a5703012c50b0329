/**
 * The Gemini writer: a conversation turned into a new Gemini CLI session, laid out as Gemini CLI
 * lays it out (`tmp/<project>/chats/session-<time>-<id prefix>.jsonl`, the project folder named
 * in `projects.json` and by its `.project_root`): the metadata line, a `user` message per
 * prompt, a `gemini` message per model round with its calls in `toolCalls` and each call's
 * result in its `result` (never again in a user message of `functionResponse` parts: Gemini's
 * request would then repeat it, and its API refuses that). The mirror of `_reader.ts`.
 *
 * @module
 */
import { basename, dirname, join } from "../../_path.ts";
import {
  argumentsObject,
  CallIds,
  conversationItems,
  degradedOf,
  type ExportConversation,
  ExportWriteError,
  shellWord,
  writeNewFile,
  type WriteOptions,
  type WrittenSession,
} from "../_writer.ts";

type Json = Record<string, unknown>;

/** What Gemini's API takes in a function call's id (kept plain). */
const CALL_ID_CHARS = /[^A-Za-z0-9_.-]/g;

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/**
 * The project folder of `cwd` under `root` (`~/.gemini/tmp`): the one `projects.json` names,
 * else one whose `.project_root` holds `cwd`, else a new one named after the folder (made, and
 * added to the registry, which keeps every other entry).
 */
async function projectFolder(root: string, cwd: string): Promise<string> {
  const registryPath = join(dirname(root), "projects.json");
  const text = await readText(registryPath);
  let registry: Json = {};
  try {
    if (text !== undefined) registry = JSON.parse(text);
  } catch (error) {
    throw new ExportWriteError(`${registryPath} is not JSON: Gemini CLI's project registry`, {
      cause: error,
    });
  }
  const projects =
    (typeof registry.projects === "object" && registry.projects !== null
      ? registry.projects
      : {}) as Record<string, string>;
  const named = projects[cwd];
  if (typeof named === "string") return named;
  const taken = new Set(Object.values(projects));
  try {
    for await (const entry of Deno.readDir(root)) {
      if (!entry.isDirectory) continue;
      taken.add(entry.name);
      const owner = await readText(join(root, entry.name, ".project_root"));
      if (owner?.trim() === cwd) return entry.name;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  const base = basename(cwd).toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") ||
    "project";
  let slug = base;
  for (let n = 2; taken.has(slug); n++) slug = `${base}-${n}`;
  await writeNewFile(join(root, slug, ".project_root"), [cwd], "");
  const updated = { ...registry, projects: { ...projects, [cwd]: slug } };
  const temp = `${registryPath}.${crypto.randomUUID()}.tmp`;
  await writeNewFile(temp, [JSON.stringify(updated, null, 2)], "");
  await Deno.rename(temp, registryPath);
  return slug;
}

/**
 * Writes `conversation` as a new Gemini CLI session under `options.root`
 * (`$GEMINI_CLI_HOME/.gemini/tmp`), registering its project folder when it is new.
 *
 * @throws {ExportWriteError} when the home cannot be written
 */
export async function writeGeminiSession(
  conversation: ExportConversation,
  options: WriteOptions,
): Promise<WrittenSession> {
  const now = options.now ?? new Date();
  // Random, as Gemini CLI's own: the file name keeps its first 8 characters.
  const sessionId = options.id ?? crypto.randomUUID();
  const { items, degraded } = conversationItems(conversation.items);
  const model = conversation.model ?? "unknown";
  const start = conversation.items[0]?.time ?? now.toISOString();
  const end = conversation.items.at(-1)?.time ?? start;
  // Objects until the end: a round's calls get their results after it is placed.
  const lines: Json[] = [{
    sessionId,
    projectHash: await sha256(conversation.cwd),
    startTime: start,
    lastUpdated: end,
    kind: "main",
    // Where it came from, in a field Gemini CLI does not read.
    turnlogExportedFrom: conversation.source,
  }];
  const ids = new CallIds(CALL_ID_CHARS, "call_");
  const calls = new Map<string, Json>();
  let round: Json | undefined;
  let wrapped = 0;
  let summaries = 0;
  // Whether the open round's calls have their results: a call after them starts a new round.
  let answered = false;
  const flush = () => {
    round = undefined;
    answered = false;
  };
  const open = (time: string, content: string): Json => {
    const made = { ...message(time, "gemini", content), thoughts: [], model };
    lines.push(made);
    return made;
  };
  const message = (time: string, type: string, content: unknown): Json => ({
    id: crypto.randomUUID(),
    timestamp: time,
    type,
    content,
  });
  for (const { item, time } of items) {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          flush();
          round = open(time, item.content);
        } else {
          flush();
          lines.push(message(time, "user", [{ text: item.content }]));
        }
        break;
      case "function_call": {
        if (round === undefined || answered) {
          flush();
          round = open(time, "");
        }
        const input = argumentsObject(item.arguments);
        if (input.wrapped) wrapped++;
        const wire = ids.call(item.callId);
        const id = wire.startsWith(`${item.name}__`) ? wire : `${item.name}__${wire}`;
        const call: Json = {
          id,
          name: item.name,
          args: input.value,
          status: "success",
          timestamp: time,
          displayName: item.name,
        };
        calls.set(wire, call);
        const list = (round.toolCalls ?? []) as Json[];
        round.toolCalls = [...list, call];
        break;
      }
      case "function_call_output": {
        const call = calls.get(ids.output(item.callId));
        if (call === undefined) break;
        call.status = item.isError ? "error" : "success";
        call.result = [{
          functionResponse: {
            id: call.id,
            name: call.name,
            response: item.isError ? { error: item.output } : { output: item.output },
          },
        }];
        answered = true;
        break;
      }
      case "compaction_summary":
        flush();
        summaries++;
        lines.push(message(time, "user", [{ text: item.content }]));
        break;
    }
  }
  flush();
  const folder = await projectFolder(options.root, conversation.cwd);
  const minute = now.toISOString().slice(0, 16).replaceAll(":", "-");
  const path = join(
    options.root,
    folder,
    "chats",
    `session-${minute}-${sessionId.slice(0, 8)}.jsonl`,
  );
  await writeNewFile(path, lines.map((line) => JSON.stringify(line)));
  return {
    id: sessionId,
    path,
    resume: `cd ${shellWord(conversation.cwd)} && gemini --resume ${sessionId}`,
    degraded: [
      ...degraded,
      ...degradedOf(
        "compaction summaries",
        summaries,
        "carried as a user message holding the summary: Gemini CLI files keep no compaction",
      ),
      ...degradedOf(
        "call arguments that are not a JSON object",
        wrapped,
        'carried as {"input": "<the arguments as they were>"}: function call args are an object',
      ),
      ...degradedOf("call ids", ids.changed, "renamed to ids Gemini's API takes, once each"),
    ],
  };
}
