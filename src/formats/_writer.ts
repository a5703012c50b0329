/**
 * What a format's writer takes and gives (see `FormatAdapter.write`): the conversation a
 * source's resume would send, each item with its source's time, turned into a new session
 * file of the adapter's tool; and the pieces every writer shares: ids of the form the target
 * API accepts, the tool's home, and the file written whole (temp in the same folder, fsync,
 * a link that never replaces a file) or not at all.
 *
 * @module
 */
import { dirname, join } from "../_path.ts";
import { TurnlogError } from "../errors/mod.ts";
import type { ApprovalMode, ResponseItem } from "../record/mod.ts";

/** One history item with the time its source line gives (ISO 8601). */
export interface TimedItem {
  /** The item. */
  item: ResponseItem;
  /** When the source wrote it. */
  time: string;
}

/** Where an exported session came from: written into it in a field its tool ignores. */
export interface ExportSource {
  /** The source's format (`codex`, `claude-code`, `gemini`, `turnlog`). */
  format: string;
  /** The source session's id, or null when its file names none. */
  sessionId: string | null;
  /** The source file's absolute path. */
  path: string;
}

/** Something a target cannot carry as it was, and what the export did with it. */
export interface Degraded {
  /** What it is, in a few words: `encrypted reasoning`. */
  what: string;
  /** How many. */
  count: number;
  /** What became of it: `left out: ...`, `carried as text: ...`. */
  how: string;
}

/** The conversation a writer writes: the source's active branch, as its resume would send it. */
export interface ExportConversation {
  /** Where it came from. */
  source: ExportSource;
  /** The project folder the new session belongs to. */
  cwd: string;
  /** The model that answered last, when the source names one. */
  model: string | null;
  /** The source's model provider (`openai`, `anthropic`, `embedded`), when it names one. */
  provider: string | null;
  /** The source's approval policy, in turnlog's words. */
  approval: ApprovalMode;
  /** The history, normalized (every call followed by its output), each item with its time. */
  items: TimedItem[];
}

/** Options of a writer. */
export interface WriteOptions {
  /** The tool's sessions root (`FormatAdapter.home.root(env)`) the new file goes under. */
  root: string;
  /** The new session's id; absent: a new one of the tool's form. */
  id?: string | undefined;
  /** The time the session is written (names the file where the tool names files by time). */
  now?: Date | undefined;
}

/** What a writer wrote. */
export interface WrittenSession {
  /** The new session's id. */
  id: string;
  /** The new session file. */
  path: string;
  /** The command that resumes it with its tool (`codex resume <id>`). */
  resume: string;
  /** What the target could not carry as it was (added to what the read could not hold). */
  degraded: Degraded[];
}

/** A target home the export cannot write into: a store that cannot be used (exit 1). */
export class ExportWriteError extends TurnlogError {
  /** An error about writing an exported session. */
  constructor(message: string, options?: ErrorOptions) {
    super("store", message, options);
    this.name = "ExportWriteError";
  }
}

/**
 * Writes `lines` (each ended with `eol`) as a new file at `path`, whole or not at all: a
 * temp file in the same folder, written a block at a time, fsynced, then linked to its name (a
 * link never replaces a file that exists) and the temp removed. Folders on the way are made.
 *
 * @throws {ExportWriteError} when the folder cannot be written or `path` exists already
 */
export async function writeNewFile(
  path: string,
  lines: Iterable<string>,
  eol = "\n",
): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${crypto.randomUUID()}.turnlog-export.tmp`);
  try {
    await Deno.mkdir(dir, { recursive: true });
    const file = await Deno.open(temp, { createNew: true, write: true, mode: 0o600 });
    try {
      const encoder = new TextEncoder();
      let block: string[] = [];
      let size = 0;
      const flush = async () => {
        const bytes = encoder.encode(block.join(""));
        for (let at = 0; at < bytes.length;) at += await file.write(bytes.subarray(at));
        block = [];
        size = 0;
      };
      for (const line of lines) {
        block.push(line, eol);
        size += line.length;
        if (size >= 1 << 20) await flush();
      }
      await flush();
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.link(temp, path);
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    if (error instanceof Deno.errors.AlreadyExists) {
      throw new ExportWriteError(`${path} exists already: an export never writes over a file`);
    }
    const why = error instanceof Error ? error.message : String(error);
    throw new ExportWriteError(`Cannot write into ${dir}: ${why}`, { cause: error });
  }
  await Deno.remove(temp);
}

/**
 * A call id of the form a target API accepts, for each call id of the history, the same for a
 * call and its output: characters `outside` matches become `_`, an empty one gets `prefix`,
 * and an id seen before (one per call: APIs refuse a repeated one) gets `_2`, `_3`, ...
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CallIds } from "./mod.ts";
 * const ids = new CallIds(/[^A-Za-z0-9_-]/g, "toolu_");
 * assert.deepEqual([ids.call("call.1"), ids.output("call.1")], ["call_1", "call_1"]);
 * assert.deepEqual([ids.call("call.1"), ids.output("call.1")], ["call_1_2", "call_1_2"]);
 * ```
 */
export class CallIds {
  readonly #open = new Map<string, string[]>();
  readonly #used = new Set<string>();
  /** Ids changed from the source's. */
  changed = 0;

  /** Ids with the characters `outside` matches replaced, else `prefix` and a number. */
  constructor(readonly outside: RegExp, readonly prefix: string) {}

  /** The id of a call. */
  call(id: string): string {
    const cleaned = id.replace(this.outside, "_");
    let made = cleaned.length > 0 ? cleaned : `${this.prefix}${this.#used.size + 1}`;
    for (let n = 2; this.#used.has(made); n++) made = `${cleaned || this.prefix}_${n}`;
    if (made !== id) this.changed++;
    this.#used.add(made);
    const open = this.#open.get(id) ?? [];
    open.push(made);
    this.#open.set(id, open);
    return made;
  }

  /** The id of an output: its call's (the oldest call of that id not answered yet). */
  output(id: string): string {
    const open = this.#open.get(id);
    return open?.shift() ?? this.call(id);
  }
}

/**
 * The items the target's API holds as messages of the conversation, the system messages left
 * out (the source tool's instructions and injected context: the target sends its own), and the
 * count of those left out, for `degraded`.
 */
export function conversationItems(
  items: readonly TimedItem[],
): { items: TimedItem[]; degraded: Degraded[] } {
  const kept = items.filter(({ item }) => !(item.type === "message" && item.role === "system"));
  const left = items.length - kept.length;
  return {
    items: kept,
    degraded: left === 0 ? [] : [{
      what: "system messages (the source tool's instructions and injected context)",
      count: left,
      how: "left out: the target tool sends its own",
    }],
  };
}

/**
 * The arguments of a call as a JSON object (APIs other than OpenAI's take objects only):
 * arguments that are not one (a patch, a redacted placeholder) are wrapped as `{input}`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { argumentsObject } from "./mod.ts";
 * assert.deepEqual(argumentsObject('{"path":"a.txt"}'), { value: { path: "a.txt" }, wrapped: false });
 * assert.deepEqual(argumentsObject("*** Begin Patch"), { value: { input: "*** Begin Patch" }, wrapped: true });
 * ```
 */
export function argumentsObject(
  args: string,
): { value: Record<string, unknown>; wrapped: boolean } {
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { value: value as Record<string, unknown>, wrapped: false };
    }
  } catch {
    // Not JSON (a patch, a redacted placeholder): wrapped below.
  }
  return { value: { input: args }, wrapped: true };
}

/** How a degraded count of `count` things reads, or nothing when there are none. */
export function degradedOf(what: string, count: number, how: string): Degraded[] {
  return count === 0 ? [] : [{ what, count, how }];
}

/** A shell word: quoted when it needs to be. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/**
 * The source an exported file names in its provenance field (`turnlog_exported_from` in a
 * Codex `session_meta`, `turnlogExportedFrom` on a Claude Code line or a Gemini metadata line),
 * when the value has that shape; readers put it in the synthesized `session_meta` as
 * `importedFrom`, which `inspect` and the page show.
 */
export function exportedFromOf(value: unknown): ExportSource | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { format, sessionId, path } = value as Record<string, unknown>;
  if (typeof format !== "string" || typeof path !== "string") return undefined;
  return { format, sessionId: typeof sessionId === "string" ? sessionId : null, path };
}
