/**
 * turnlog's own format as an adapter: the default every other format is told apart from,
 * first in detection order. Its files are found, listed and repaired by turnlog's store and
 * repair (`src/store/`, `src/repair/`); what a file says is read here, as for every other tool.
 *
 * @module
 */
import type { LineVerdict, ReadSessionOptions } from "../_adapter.ts";
import { scanHead } from "../_head.ts";
import { type Json, obj, str } from "../_line.ts";
import {
  argumentText,
  type FormatSearch,
  markerCounter,
  type Piece,
  previewText,
} from "../_search.ts";
import type { ForeignEntry, ForeignFacts } from "../_types.ts";
import type { FileUsage } from "../_usage.ts";
import { turnlogUsage } from "./_usage.ts";
import { TURN_CONTEXT_MARK, type TurnlogHead, TurnlogHeadReader } from "./_head.ts";
import { judgeTurnlogLine, namesTurnlogFile, readTurnlogSession } from "./_reader.ts";

/**
 * turnlog's own format: its names, detection, reading, head and search. Code that needs to
 * know whether a file is turnlog's own asks `adapter.own` (true here alone), never a name.
 */
export interface OwnFormatAdapter {
  /** True: turnlog's own format, read by `src/history/`, found in `src/store/`, repaired by `src/repair/`. */
  readonly own: true;
  /** `turnlog`. */
  readonly name: "turnlog";
  /** `turnlog`. */
  readonly tool: string;
  /** `turnlog`. */
  readonly shortTool: string;
  /** `turnlog session`. */
  readonly fileNoun: string;
  /** How `search` reads its sessions; the store's walk is the search's own (`src/search/`). */
  readonly search: Omit<FormatSearch, "walk">;
  /** Detection: what a parsed line of a file's head says, or undefined when it is not turnlog's. */
  judgeLine(value: Json): LineVerdict | undefined;
  /** Detection of an empty file: whether its path is named like a turnlog session file. */
  namesFile(path: string): boolean;
  /** Reads the file into its records with their lines; the return value is its facts. */
  read(
    path: string,
    sizeBytes: number,
    options: ReadSessionOptions,
  ): AsyncGenerator<ForeignEntry | ForeignEntry[], ForeignFacts>;
  /** The session's head from its first lines (at most `PREVIEW_HEAD_BYTES`). */
  head(path: string): Promise<TurnlogHead>;
  /** The tokens of each run the file holds (`run_finished`), with the run's model. */
  usage(path: string): Promise<FileUsage>;
}

async function head(path: string): Promise<TurnlogHead> {
  const reader = new TurnlogHeadReader();
  await scanHead(path, (value) => reader.see(value));
  return reader.head;
}

function itemPieces(item: Json): Piece[] {
  const name = str(item, "name") ?? str(item, "toolName");
  const tool = name === undefined ? {} : { tool: name };
  switch (item.type) {
    case "message": {
      const role = item.role;
      if (role !== "user" && role !== "assistant") return [];
      return [{ role, text: str(item, "content") ?? "" }];
    }
    case "function_call":
      return [{ role: "tool call", text: argumentText(str(item, "arguments") ?? ""), ...tool }];
    case "function_call_output":
      return [{ role: "tool output", text: str(item, "output") ?? "", ...tool }];
    case "compaction_summary":
      return [{ role: "summary", text: str(item, "content") ?? "" }];
    default:
      return [];
  }
}

/**
 * turnlog's own format.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { turnlogAdapter } from "./mod.ts";
 * assert.equal(turnlogAdapter.own, true);
 * assert.ok(turnlogAdapter.namesFile("2026-01-15T10-00-00-000Z-0194.jsonl"));
 * ```
 */
export const turnlogAdapter: OwnFormatAdapter = {
  own: true,
  name: "turnlog",
  tool: "turnlog",
  shortTool: "turnlog",
  fileNoun: "turnlog session",
  judgeLine: judgeTurnlogLine,
  namesFile: namesTurnlogFile,
  read: (path, sizeBytes) => readTurnlogSession(path, sizeBytes),
  head,
  usage: turnlogUsage,
  search: {
    async head(session) {
      const read = await head(session.path);
      const firstPrompt = read.firstPrompt === null ? null : previewText(read.firstPrompt);
      return { started: read.started, cwd: read.cwd, firstPrompt, title: null };
    },
    pieces(value) {
      const payload = obj(value, "payload");
      return value.type === "response_item" && payload ? itemPieces(payload) : [];
    },
    turns: () => markerCounter([TURN_CONTEXT_MARK]),
  },
};
