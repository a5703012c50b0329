/**
 * The Codex writer: a conversation turned into a new Codex rollout, laid out as Codex lays it
 * out (`sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl`), in the legacy (unnumbered) mode
 * Codex 0.169 and 0.171 resume and go on writing: a `session_meta` with every field `codex
 * resume` needs, `response_item` messages, `function_call`s and their outputs, an `event_msg`
 * `user_message` after each prompt (what its picker and `resume --last` look for), and a
 * `compacted` record where the source compacted. The mirror of `_reader.ts`.
 *
 * @module
 */
import { join } from "../../_path.ts";
import { newId } from "../../record/mod.ts";
import {
  CallIds,
  conversationItems,
  type Degraded,
  degradedOf,
  type ExportConversation,
  type TimedItem,
  writeNewFile,
  type WriteOptions,
  type WrittenSession,
} from "../_writer.ts";

/** The Codex version the rollout says wrote it (the oldest one it was tried with). */
export const CODEX_WRITTEN_VERSION = "0.169.0";

/** The `originator` of an exported rollout: who wrote it, for a person. */
export const CODEX_EXPORT_ORIGINATOR = "turnlog_export";

/** Characters the Responses API takes in a call id (it checks none; kept plain). */
const CALL_ID_CHARS = /[^A-Za-z0-9_.:-]/g;

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** A rollout's name time: local, `2026-12-05T19-45-00`. */
function nameTime(now: Date): string {
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${
    pad(now.getHours())
  }-${pad(now.getMinutes())}-${pad(now.getSeconds())}`;
}

/**
 * The rollout's lines, made as they are written (a line is not kept once written): the
 * `session_meta`, then each item in Codex's form. Counts the error flags it moves into events.
 */
function* rolloutLines(
  items: readonly TimedItem[],
  head: {
    id: string;
    start: string;
    conversation: ExportConversation;
    ids: CallIds;
    counted: { errors: number };
  },
): Generator<string> {
  const { id, start, conversation, ids, counted } = head;
  const line = (timestamp: string, type: string, payload: unknown) =>
    JSON.stringify({ timestamp, type, payload });
  yield line(start, "session_meta", {
    id,
    timestamp: start,
    cwd: conversation.cwd,
    originator: CODEX_EXPORT_ORIGINATOR,
    cli_version: CODEX_WRITTEN_VERSION,
    source: "cli",
    // Where it came from, in a field Codex does not read.
    turnlog_exported_from: conversation.source,
  });
  for (const { item, time } of items) {
    switch (item.type) {
      case "message": {
        const part = item.role === "user" ? "input_text" : "output_text";
        yield line(time, "response_item", {
          type: "message",
          role: item.role,
          content: [{ type: part, text: item.content }],
        });
        if (item.role === "user") {
          yield line(time, "event_msg", {
            type: "user_message",
            message: item.content,
            images: [],
            local_images: [],
            text_elements: [],
          });
        }
        break;
      }
      case "function_call":
        yield line(time, "response_item", {
          type: "function_call",
          name: item.name,
          arguments: item.arguments,
          call_id: ids.call(item.callId),
        });
        break;
      case "function_call_output": {
        const callId = ids.output(item.callId);
        if (item.isError) {
          // The failure, where Codex's own files say it (its exec event's exit code): not sent
          // to the model (the Responses API has no error flag), read back by turnlog.
          counted.errors++;
          yield line(time, "event_msg", {
            type: "exec_command_end",
            call_id: callId,
            exit_code: 1,
          });
        }
        yield line(time, "response_item", {
          type: "function_call_output",
          call_id: callId,
          output: item.output,
        });
        break;
      }
      case "compaction_summary":
        // Codex's own form: without a replacement history, the message is the summary.
        yield line(time, "compacted", { message: item.content });
        break;
    }
  }
}

/**
 * Writes `conversation` as a new Codex rollout under `options.root` (`$CODEX_HOME/sessions`).
 *
 * @throws {ExportWriteError} when the home cannot be written
 */
export async function writeCodexRollout(
  conversation: ExportConversation,
  options: WriteOptions,
): Promise<WrittenSession> {
  const now = options.now ?? new Date();
  const id = options.id ?? newId(now);
  const { items, degraded } = conversationItems(conversation.items);
  const start = conversation.items[0]?.time ?? now.toISOString();
  const ids = new CallIds(CALL_ID_CHARS, "call_");
  const counted = { errors: 0 };
  const lines = rolloutLines(items, { id, start, conversation, ids, counted });
  const dayFolder = join(
    options.root,
    String(now.getFullYear()),
    pad(now.getMonth() + 1),
    pad(now.getDate()),
  );
  const path = join(dayFolder, `rollout-${nameTime(now)}-${id}.jsonl`);
  await writeNewFile(path, lines);
  const lost: Degraded[] = [
    ...degraded,
    ...degradedOf(
      "error flags of tool results",
      counted.errors,
      "kept in an exec_command_end event (exit code 1) before the result: the Responses API " +
        "has no error flag, so Codex sends the result's text only",
    ),
    ...degradedOf("call ids", ids.changed, "renamed to ids the Responses API takes once each"),
  ];
  return { id, path, resume: `codex resume ${id}`, degraded: lost };
}
