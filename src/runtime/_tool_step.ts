/**
 * One tool call of a turn: asked for approval where the policy says so, run (or denied, or
 * cancelled), and its output appended right after it finishes.
 *
 * @module
 */
import type { FunctionCallItem, FunctionCallOutputItem } from "../record/mod.ts";
import { clipWithNote } from "../text/mod.ts";
import { ToolCancelledError, type ToolResult } from "../tools/mod.ts";
import type { ActiveTurn } from "./_active_turn.ts";
import { cancelledOutput } from "./_cancelled.ts";
import { deniedOutput, needsApproval } from "./_approvals.ts";
import type { RunEvent } from "./_events.ts";

/** The longest tool output a `tool_finished` event carries (the session file keeps it all). */
export const EVENT_OUTPUT_LIMIT = 4096;

/** Asks the approver when the policy wants it; a result when the call must not run. */
async function* approval(
  turn: ActiveTurn,
  call: FunctionCallItem,
): AsyncGenerator<RunEvent, ToolResult | undefined> {
  const { tools, approver, signal } = turn.settings;
  const { runId, turn: context } = turn.session;
  const tool = tools.get(call.name);
  if (signal.aborted || !tool || !needsApproval(context.policy.approval, tool)) return undefined;
  const request = { runId, callId: call.callId, name: call.name, arguments: call.arguments };
  yield { type: "approval_requested", ...request };
  const decision = await approver.decide(request, signal);
  yield {
    type: "approval_resolved",
    callId: call.callId,
    approved: decision.approved,
    reason: decision.reason,
  };
  if (signal.aborted) return { output: cancelledOutput(call.name, false), isError: true };
  if (!decision.approved) {
    return { output: deniedOutput(call.name, decision.reason), isError: true };
  }
  return undefined;
}

async function run(turn: ActiveTurn, call: FunctionCallItem): Promise<ToolResult> {
  const { tools, signal } = turn.settings;
  if (signal.aborted) return { output: cancelledOutput(call.name, false), isError: true };
  try {
    return await tools.run(call, signal);
  } catch (error) {
    if (error instanceof ToolCancelledError) {
      return { output: cancelledOutput(call.name, true), isError: true };
    }
    throw error;
  }
}

/** Runs one tool call of the turn, yielding its events, and appends its output. */
export async function* toolCall(
  turn: ActiveTurn,
  call: FunctionCallItem,
): AsyncGenerator<RunEvent> {
  yield { type: "tool_requested", callId: call.callId, name: call.name, arguments: call.arguments };
  const outcome = (yield* approval(turn, call)) ?? await run(turn, call);
  const output: FunctionCallOutputItem = {
    type: "function_call_output",
    callId: call.callId,
    toolName: call.name,
    output: outcome.output,
    isError: outcome.isError,
  };
  await turn.commit([output], "tool_output");
  yield {
    type: "tool_finished",
    callId: call.callId,
    name: call.name,
    isError: outcome.isError,
    output: clipWithNote(
      outcome.output,
      EVENT_OUTPUT_LIMIT,
      (length) => `[shortened for display: ${length} characters in the session file]`,
    ),
  };
}
