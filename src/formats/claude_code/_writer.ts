/**
 * The Claude Code writer: a conversation turned into a new Claude Code transcript, laid out as
 * Claude Code lays it out (`projects/<cwd, every non-alphanumeric as '-'>/<session id>.jsonl`):
 * one chain of lines through `uuid`/`parentUuid`, each with `sessionId`, `cwd`, `version` and
 * `entrypoint: "cli"` (its picker hides `sdk-*` sessions); a user line per prompt, an assistant
 * line per model round (its text and `tool_use` blocks), a user line of `tool_result` blocks
 * after it, and a `compact_boundary` with the summary after it where the source compacted. The
 * mirror of `_reader.ts`.
 *
 * @module
 */
import { join } from "../../_path.ts";
import { newId } from "../../record/mod.ts";
import { claudeProjectFolder } from "./_relocate.ts";
import {
  argumentsObject,
  CallIds,
  conversationItems,
  degradedOf,
  type ExportConversation,
  shellWord,
  writeNewFile,
  type WriteOptions,
  type WrittenSession,
} from "../_writer.ts";

/** The Claude Code version the transcript says wrote it (one it was tried with). */
export const CLAUDE_WRITTEN_VERSION = "2.1.328";

/** What the Messages API takes in a `tool_use` id: `^[a-zA-Z0-9_-]+$`. */
const TOOL_USE_ID_CHARS = /[^A-Za-z0-9_-]/g;

type Block = Record<string, unknown>;

/**
 * Writes `conversation` as a new Claude Code transcript under `options.root`
 * (`$CLAUDE_CONFIG_DIR/projects`).
 *
 * @throws {ExportWriteError} when the home cannot be written
 */
export async function writeClaudeTranscript(
  conversation: ExportConversation,
  options: WriteOptions,
): Promise<WrittenSession> {
  const now = options.now ?? new Date();
  const sessionId = options.id ?? newId(now);
  const { items, degraded } = conversationItems(conversation.items);
  const model = conversation.model ?? "unknown";
  const lines: string[] = [];
  let parent: string | null = null;
  let messages = 0;
  const line = (time: string, fields: Record<string, unknown>) => {
    const uuid = crypto.randomUUID();
    lines.push(JSON.stringify({
      parentUuid: fields.parentUuid === undefined ? parent : fields.parentUuid,
      isSidechain: false,
      userType: "external",
      cwd: conversation.cwd,
      sessionId,
      version: CLAUDE_WRITTEN_VERSION,
      entrypoint: "cli",
      ...fields,
      uuid,
      timestamp: time,
      // Where it came from, in a field Claude Code does not read (the first line only).
      ...(lines.length === 0 ? { turnlogExportedFrom: conversation.source } : {}),
    }));
    parent = uuid;
  };
  const ids = new CallIds(TOOL_USE_ID_CHARS, "toolu_");
  let wrapped = 0;
  // The open model round: its message id, and whether results came after its calls.
  let round: { id: string; calls: boolean; results: boolean } | undefined;
  // One content block a line, as Claude Code writes them; the lines of one round share the
  // message id (Claude Code sends them as one message), so each keeps its own time.
  const assistant = (time: string, block: Block) => {
    const calls = round!.calls;
    line(time, {
      type: "assistant",
      message: {
        model,
        id: round!.id,
        type: "message",
        role: "assistant",
        content: [block],
        stop_reason: calls ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    });
  };
  const newRound = () => ({ id: `msg_turnlog_${++messages}`, calls: false, results: false });
  for (const { item, time } of items) {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          // Text after a round's calls is the next round's.
          if (round === undefined || round.calls) round = newRound();
          assistant(time, { type: "text", text: item.content });
        } else {
          round = undefined;
          line(time, { type: "user", message: { role: "user", content: item.content } });
        }
        break;
      case "function_call": {
        if (round === undefined || round.results) round = newRound();
        round.calls = true;
        const input = argumentsObject(item.arguments);
        if (input.wrapped) wrapped++;
        assistant(time, {
          type: "tool_use",
          id: ids.call(item.callId),
          name: item.name,
          input: input.value,
        });
        break;
      }
      case "function_call_output":
        if (round !== undefined) round.results = true;
        line(time, {
          type: "user",
          message: {
            role: "user",
            content: [{
              type: "tool_result",
              tool_use_id: ids.output(item.callId),
              content: item.output,
              is_error: item.isError,
            }],
          },
        });
        break;
      case "compaction_summary": {
        round = undefined;
        const before = parent;
        line(time, {
          parentUuid: null,
          logicalParentUuid: before,
          type: "system",
          subtype: "compact_boundary",
          content: "Conversation compacted",
          isMeta: false,
          level: "info",
          compactMetadata: { trigger: "manual", preTokens: 0 },
        });
        line(time, {
          type: "user",
          isCompactSummary: true,
          isVisibleInTranscriptOnly: true,
          message: { role: "user", content: item.content },
        });
        break;
      }
    }
  }
  const path = join(options.root, claudeProjectFolder(conversation.cwd), `${sessionId}.jsonl`);
  await writeNewFile(path, lines);
  return {
    id: sessionId,
    path,
    resume: `cd ${shellWord(conversation.cwd)} && claude --resume ${sessionId}`,
    degraded: [
      ...degraded,
      ...degradedOf(
        "call arguments that are not a JSON object",
        wrapped,
        'carried as {"input": "<the arguments as they were>"}: tool_use input is an object',
      ),
      ...degradedOf("call ids", ids.changed, "renamed to the form ^[a-zA-Z0-9_-]+$, once each"),
    ],
  };
}
