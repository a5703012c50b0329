/**
 * Every record type checked by hand, on the hot path of reading a session: a line that is a
 * valid record never reaches zod. It only ever accepts, and only what `SessionRecordSchema`
 * accepts, building the very object zod would return (keys in the schema's order, unknown keys
 * stripped); anything else, valid or not, returns `undefined` and goes to zod, which stays the
 * single source of truth for the shape (the record types are inferred from it) and the error
 * messages. tests/reader_fast_path_test.ts proves the two agree on every record type and on many
 * mutations of each; tests/record_validate_property_test.ts on random records, valid and broken.
 *
 * Why not zod on the valid lines: in a process that reads one session (a CLI command), zod's
 * first parses are cold and cost milliseconds before a line is read (about 6 ms on the bench
 * machine); `z.compile` is faster once warm but takes about 10 ms to compile the record
 * schema. Either is more than the whole read of a 1 MB session.
 *
 * @module
 */
import type {
  CompactionCheckpoint,
  ForkedFrom,
  ImportedFrom,
  Policy,
  ResponseItem,
  ResponseItemPayload,
  RunFinished,
  SessionMeta,
  SessionRecord,
  TurnContext,
  Usage,
} from "./_types.ts";
// zod and the schemas are loaded only when the agreement below is asked for (the tests), not
// when a reader starts.
import { recordSchemas } from "./_schemas_lazy.ts";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isNonEmptyString = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0;
/** zod's `z.number().int()`: a finite, safe integer. */
const isInt = (value: unknown): value is number =>
  typeof value === "number" && Number.isSafeInteger(value);
const isCount = (value: unknown): value is number => isInt(value) && value >= 0;
const isPositive = (value: unknown): value is number => isInt(value) && value > 0;

const ROLES: ReadonlySet<unknown> = new Set(["system", "user", "assistant"]);
const WIRE_APIS: ReadonlySet<unknown> = new Set(["responses", "chat"]);
const APPROVALS: ReadonlySet<unknown> = new Set(["auto", "ask-changes", "ask-all"]);
const OUTCOMES: ReadonlySet<unknown> = new Set(["succeeded", "failed", "cancelled"]);
/** A format's name as the formats registry writes it (`codex`, `claude-code`). */
const FORMAT_NAME = /^[a-z][a-z0-9-]*$/;

/** A history item, or undefined. */
function historyItem(payload: Json): ResponseItem | undefined {
  switch (payload.type) {
    case "message": {
      const { role, content } = payload;
      if (!isString(content) || !ROLES.has(role)) return undefined;
      return { type: "message", role: role as "user", content };
    }
    case "function_call": {
      const { callId, name, arguments: args } = payload;
      if (!isNonEmptyString(callId) || !isNonEmptyString(name) || !isString(args)) {
        return undefined;
      }
      return { type: "function_call", callId, name, arguments: args };
    }
    case "function_call_output": {
      const { callId, toolName, output, isError, synthesized } = payload;
      if (
        !isNonEmptyString(callId) || !isNonEmptyString(toolName) || !isString(output) ||
        typeof isError !== "boolean" || ("synthesized" in payload && synthesized !== true)
      ) {
        return undefined;
      }
      return "synthesized" in payload
        ? { type: "function_call_output", callId, toolName, output, isError, synthesized: true }
        : { type: "function_call_output", callId, toolName, output, isError };
    }
    case "compaction_summary": {
      const { content } = payload;
      return isString(content) ? { type: "compaction_summary", content } : undefined;
    }
    default:
      return undefined;
  }
}

function checkpoint(payload: Json): CompactionCheckpoint | undefined {
  const { version, reason, tokensBefore, removedItemCount, keptItemCount, recordsBefore } = payload;
  const history = payload.replacementHistory;
  if (
    !isPositive(version) || !isString(reason) || !isCount(tokensBefore) ||
    !isCount(removedItemCount) || !isCount(keptItemCount) ||
    ("recordsBefore" in payload && !isCount(recordsBefore)) || !Array.isArray(history)
  ) {
    return undefined;
  }
  const replacementHistory: ResponseItem[] = [];
  for (const item of history) {
    const valid = isObject(item) ? historyItem(item) : undefined;
    if (valid === undefined) return undefined;
    replacementHistory.push(valid);
  }
  const counts = { version, reason, tokensBefore, removedItemCount, keptItemCount };
  return "recordsBefore" in payload
    ? {
      type: "compaction_checkpoint",
      ...counts,
      recordsBefore: recordsBefore as number,
      replacementHistory,
    }
    : { type: "compaction_checkpoint", ...counts, replacementHistory };
}

function policy(value: unknown): Policy | undefined {
  return isObject(value) && APPROVALS.has(value.approval)
    ? { approval: value.approval as Policy["approval"] }
    : undefined;
}

function forkedFrom(value: unknown): ForkedFrom | undefined {
  if (!isObject(value)) return undefined;
  const { sessionId, turn } = value;
  if (!isNonEmptyString(sessionId) || (turn !== null && !isPositive(turn))) return undefined;
  return { sessionId, turn };
}

function importedFrom(value: unknown): ImportedFrom | undefined {
  if (!isObject(value)) return undefined;
  const { format, path, sessionId } = value;
  if (!isString(format) || !FORMAT_NAME.test(format) || !isString(path)) return undefined;
  if (sessionId !== null && !isString(sessionId)) return undefined;
  return { format, path, sessionId };
}

function sessionMeta(payload: Json): SessionMeta | undefined {
  const { version, id, createdAt, cwd, modelProvider, model, wireApi } = payload;
  const kept = policy(payload.policy);
  const imported = "importedFrom" in payload ? importedFrom(payload.importedFrom) : undefined;
  const forked = "forkedFrom" in payload ? forkedFrom(payload.forkedFrom) : undefined;
  if (
    !isPositive(version) || !isNonEmptyString(id) || !isString(createdAt) || !isString(cwd) ||
    !isString(modelProvider) || !isString(model) || !WIRE_APIS.has(wireApi) ||
    kept === undefined || ("importedFrom" in payload && imported === undefined) ||
    ("forkedFrom" in payload && forked === undefined)
  ) {
    return undefined;
  }
  return {
    version,
    id,
    createdAt,
    cwd,
    modelProvider,
    model,
    wireApi: wireApi as SessionMeta["wireApi"],
    policy: kept,
    ...(imported ? { importedFrom: imported } : {}),
    ...(forked ? { forkedFrom: forked } : {}),
  };
}

function turnContext(payload: Json): TurnContext | undefined {
  const { runId, model, wireApi, resumed } = payload;
  const kept = policy(payload.policy);
  if (
    !isNonEmptyString(runId) || !isString(model) || !WIRE_APIS.has(wireApi) ||
    kept === undefined || typeof resumed !== "boolean"
  ) {
    return undefined;
  }
  return { runId, model, wireApi: wireApi as TurnContext["wireApi"], policy: kept, resumed };
}

function usage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const { inputTokens, outputTokens, totalTokens } = value;
  if (!isCount(inputTokens) || !isCount(outputTokens) || !isCount(totalTokens)) return undefined;
  return { inputTokens, outputTokens, totalTokens };
}

function runFinished(payload: Json): RunFinished | undefined {
  const { runId, outcome, error, rounds } = payload;
  const used = "usage" in payload ? usage(payload.usage) : undefined;
  if (
    !isNonEmptyString(runId) || !OUTCOMES.has(outcome) ||
    ("error" in payload && !isString(error)) || !isCount(rounds) ||
    ("usage" in payload && used === undefined)
  ) {
    return undefined;
  }
  return {
    runId,
    outcome: outcome as RunFinished["outcome"],
    ...("error" in payload ? { error: error as string } : {}),
    rounds,
    ...(used ? { usage: used } : {}),
  };
}

/**
 * The record zod would return for `value`, checked by hand; undefined when the hand-written
 * checks do not accept it (it may still be valid: zod decides).
 */
export function validateRecord(value: Json): SessionRecord | undefined {
  const { timestamp, payload } = value;
  if (!isNonEmptyString(timestamp) || !isObject(payload)) return undefined;
  switch (value.type) {
    case "response_item": {
      const item: ResponseItemPayload | undefined = payload.type === "compaction_checkpoint"
        ? checkpoint(payload)
        : historyItem(payload);
      return item && { timestamp, type: "response_item", payload: item };
    }
    case "turn_context": {
      const context = turnContext(payload);
      return context && { timestamp, type: "turn_context", payload: context };
    }
    case "run_finished": {
      const run = runFinished(payload);
      return run && { timestamp, type: "run_finished", payload: run };
    }
    case "session_meta": {
      const meta = sessionMeta(payload);
      return meta && { timestamp, type: "session_meta", payload: meta };
    }
    default:
      return undefined;
  }
}

/** The keys of every object schema the checks above build, in the schemas' order. */
function handCheckedShapes(): readonly [{ shape: object }, readonly string[]][] {
  const S = recordSchemas();
  return [
    [S.MessageItemSchema, ["type", "role", "content"]],
    [S.FunctionCallItemSchema, ["type", "callId", "name", "arguments"]],
    [S.FunctionCallOutputItemSchema, [
      "type",
      "callId",
      "toolName",
      "output",
      "isError",
      "synthesized",
    ]],
    [S.CompactionSummaryItemSchema, ["type", "content"]],
    [S.CompactionCheckpointSchema, [
      "type",
      "version",
      "reason",
      "tokensBefore",
      "removedItemCount",
      "keptItemCount",
      "recordsBefore",
      "replacementHistory",
    ]],
    [S.PolicySchema, ["approval"]],
    [S.ImportedFromSchema, ["format", "path", "sessionId"]],
    [S.ForkedFromSchema, ["sessionId", "turn"]],
    [S.SessionMetaSchema, [
      "version",
      "id",
      "createdAt",
      "cwd",
      "modelProvider",
      "model",
      "wireApi",
      "policy",
      "importedFrom",
      "forkedFrom",
    ]],
    [S.TurnContextSchema, ["runId", "model", "wireApi", "policy", "resumed"]],
    [S.UsageSchema, ["inputTokens", "outputTokens", "totalTokens"]],
    [S.RunFinishedSchema, ["runId", "outcome", "error", "rounds", "usage"]],
    ...S.SessionRecordSchema.options.map((option) =>
      [option, ["timestamp", "type", "payload"]] as [{ shape: object }, string[]]
    ),
  ];
}

/** The values of every enum the checks above accept, in the schemas' order. */
function handCheckedEnums(): readonly [{ options: readonly string[] }, ReadonlySet<unknown>][] {
  const S = recordSchemas();
  return [
    [S.MessageItemSchema.shape.role, ROLES],
    [S.WireApiSchema, WIRE_APIS],
    [S.ApprovalModeSchema, APPROVALS],
    [S.RunOutcomeSchema, OUTCOMES],
  ];
}

/**
 * Whether the schemas still have exactly the keys and values the checks know.
 * tests/reader_fast_path_test.ts asserts it, so a schema changed without its check fails the
 * tests; it is not asked at run time, where it would load zod on every start.
 */
export function handChecksMatchSchemas(): boolean {
  return handCheckedShapes().every(([schema, keys]) =>
    Object.keys(schema.shape).join(",") === keys.join(",")
  ) &&
    handCheckedEnums().every(([schema, values]) =>
      schema.options.join(",") === [...values].join(",")
    );
}
