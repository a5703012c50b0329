/**
 * One model round of a turn: the whole history sent, the answer streamed back, and the
 * assistant's message and tool calls appended before any tool runs (so a crash mid-tool leaves
 * exactly one call without an output, which resume repairs).
 *
 * @module
 */
import { historyChars } from "../compaction/mod.ts";
import { TurnlogError } from "../errors/mod.ts";
import type { FunctionCallItem, ResponseItem } from "../record/mod.ts";
import { formatNumber } from "../text/mod.ts";
import { type ActiveTurn, addUsage } from "./_active_turn.ts";
import type { RunEvent } from "./_events.ts";
import { ModelResponseError, type ModelRoundResult } from "./_wire.ts";

/**
 * Refuses a history longer than one request may carry, before the request: the engine could
 * not even make the request's text, and no model would take it.
 */
function checkRequestSize(turn: ActiveTurn): void {
  const chars = historyChars(turn.history);
  const limit = turn.settings.maxRequestChars;
  if (chars <= limit) return;
  throw new TurnlogError(
    "session_file",
    `${turn.session.location.path}: the history is ${formatNumber(chars)} characters, more ` +
      `than one request can carry (${formatNumber(limit)}), and compaction did not shrink it: ` +
      "continue a fork of the session from a later turn (resume --fork <id> --at-turn <n>)",
  );
}

/** Streams one round, yielding its events; returns the tool calls the model asked for. */
export async function* modelRound(turn: ActiveTurn): AsyncGenerator<RunEvent, FunctionCallItem[]> {
  const { connection, tools, signal } = turn.settings;
  const { wireApi, model } = turn.session.turn;
  checkRequestSize(turn);
  turn.rounds++;
  yield { type: "model_requested", round: turn.rounds, messageCount: turn.history.length };
  let result: ModelRoundResult | undefined;
  const parts = connection.streamRound({
    wireApi,
    model,
    history: turn.history,
    tools: tools.definitions,
    signal,
  });
  for await (const part of parts) {
    if (part.kind === "delta") yield { type: "assistant_delta", text: part.text };
    else result = part.result;
  }
  if (!result) throw new ModelResponseError("The model sent no response");
  turn.lastUsage = result.usage;
  turn.usage = addUsage(turn.usage, result.usage);

  const items: ResponseItem[] = [];
  if (result.text) items.push({ type: "message", role: "assistant", content: result.text });
  items.push(...result.calls);
  await turn.commit(items, "model_output");
  if (result.text) {
    turn.answer = result.text;
    yield { type: "assistant_message", round: turn.rounds, text: result.text };
  }
  return result.calls;
}
