/**
 * One line of a session file turned into a validated record, or into a problem reported as
 * `path:line: what is wrong` instead of thrown.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { Line } from "../io/mod.ts";
import { clip } from "../text/mod.ts";
import { firstIssue } from "./_issues.ts";
import {
  FunctionCallItemSchema,
  FunctionCallOutputItemSchema,
  MessageItemSchema,
  RECORD_TYPES,
  type SessionRecord,
  SessionRecordSchema,
} from "./_schemas.ts";

/** What is wrong with a line. */
export type ProblemKind =
  | "torn_tail"
  | "malformed_json"
  | "not_an_object"
  | "unknown_type"
  | "invalid_record";

/** A line that is not a valid record. */
export interface LineProblem {
  line: number;
  kind: ProblemKind;
  /** `path:line: what is wrong`. */
  message: string;
  /** Byte range of the line, terminator included, for repair. */
  start: number;
  end: number;
}

/** One line of a session file: a record or a problem. */
export type RecordEntry =
  | { line: number; record: SessionRecord; problem?: undefined }
  | { line: number; record?: undefined; problem: LineProblem };

/** A session file that cannot be read as asked. */
export class SessionFileError extends TurnlogError {
  /** The problem, when the error is about one line. */
  readonly problem: LineProblem | undefined;
  constructor(message: string, options?: ErrorOptions & { problem?: LineProblem }) {
    super("session_file", message, options);
    this.name = "SessionFileError";
    this.problem = options?.problem;
  }
}

const KNOWN_TYPES: ReadonlySet<string> = new Set(RECORD_TYPES);

/**
 * Parses one line of a session file. `isLast` marks the file's last line, so a torn write
 * (no final newline, not valid JSON) is told apart from a corrupt line in the middle.
 */
export function parseRecordLine(path: string, line: Line): RecordEntry {
  const problem = (kind: ProblemKind, what: string): RecordEntry => ({
    line: line.line,
    problem: {
      line: line.line,
      kind,
      message: `${path}:${line.line}: ${what}`,
      start: line.start,
      end: line.end,
    },
  });
  let value: unknown;
  try {
    value = JSON.parse(line.text);
  } catch (error) {
    if (!line.terminated) {
      return problem(
        "torn_tail",
        `torn last line (${line.text.length} characters without a final newline, not valid JSON): an append was cut off`,
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    return problem("malformed_json", `not valid JSON (${clip(reason, 120, "...")})`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return problem("not_an_object", "not a JSON object");
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== "string" || !KNOWN_TYPES.has(type)) {
    return problem(
      "unknown_type",
      `unknown record type ${JSON.stringify(type ?? null)} (expected one of ${
        RECORD_TYPES.join(", ")
      })`,
    );
  }
  const fast = HOT_PATH_MATCHES_SCHEMA
    ? validateHotRecord(value as Record<string, unknown>)
    : undefined;
  if (fast !== undefined) return { line: line.line, record: fast };
  const parsed = SessionRecordSchema.safeParse(value);
  if (!parsed.success) {
    return problem("invalid_record", `invalid ${type} record: ${firstIssue(parsed.error)}`);
  }
  return { line: line.line, record: parsed.data };
}

type Json = Record<string, unknown>;

const sameKeys = (shape: object, keys: readonly string[]) =>
  Object.keys(shape).join(",") === keys.join(",");

/**
 * Whether the schemas still have exactly the keys (and roles) {@linkcode validateHotRecord}
 * knows; if one changes, the hand-written path turns itself off and zod does all the work
 * (tests/reader_fast_path_test.ts fails until the two agree again).
 */
const HOT_PATH_MATCHES_SCHEMA = sameKeys(MessageItemSchema.shape, ["type", "role", "content"]) &&
  MessageItemSchema.shape.role.options.join(",") === "system,user,assistant" &&
  sameKeys(FunctionCallItemSchema.shape, ["type", "callId", "name", "arguments"]) &&
  sameKeys(FunctionCallOutputItemSchema.shape, [
    "type",
    "callId",
    "toolName",
    "output",
    "isError",
    "synthesized",
  ]) &&
  SessionRecordSchema.options.every((option) =>
    sameKeys(option.shape, ["timestamp", "type", "payload"])
  );

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isNonEmptyString = (value: unknown): value is string =>
  typeof value === "string" && value.length > 0;

/**
 * The hot path of validation: the `response_item` records that make up nearly every line of a
 * session (messages, tool calls and their outputs), checked by hand. It only ever accepts, and
 * only what {@linkcode SessionRecordSchema} accepts, building the very object zod would return
 * (keys in the schema's order, unknown keys stripped); anything else, valid or not, returns
 * `undefined` and goes to zod, which stays the single source of truth for the shape and the
 * error messages. tests/reader_fast_path_test.ts proves the two agree.
 */
function validateHotRecord(value: Json): SessionRecord | undefined {
  const { timestamp, payload } = value;
  if (value.type !== "response_item" || !isNonEmptyString(timestamp) || !isObject(payload)) {
    return undefined;
  }
  switch (payload.type) {
    case "message": {
      const { role, content } = payload;
      if (
        typeof content !== "string" ||
        (role !== "user" && role !== "assistant" && role !== "system")
      ) {
        return undefined;
      }
      return { timestamp, type: "response_item", payload: { type: "message", role, content } };
    }
    case "function_call": {
      const { callId, name, arguments: args } = payload;
      if (!isNonEmptyString(callId) || !isNonEmptyString(name) || typeof args !== "string") {
        return undefined;
      }
      return {
        timestamp,
        type: "response_item",
        payload: { type: "function_call", callId, name, arguments: args },
      };
    }
    case "function_call_output": {
      const { callId, toolName, output, isError, synthesized } = payload;
      if (
        !isNonEmptyString(callId) || !isNonEmptyString(toolName) ||
        typeof output !== "string" || typeof isError !== "boolean" ||
        (synthesized !== undefined && synthesized !== true) ||
        (synthesized === undefined && "synthesized" in payload)
      ) {
        return undefined;
      }
      return {
        timestamp,
        type: "response_item",
        payload: synthesized === true
          ? { type: "function_call_output", callId, toolName, output, isError, synthesized }
          : { type: "function_call_output", callId, toolName, output, isError },
      };
    }
    default:
      return undefined;
  }
}

const encoder = new TextEncoder();

/** Encodes records as JSONL, one line each, in one buffer. */
export function encodeRecords(records: readonly SessionRecord[]): Uint8Array {
  return encoder.encode(records.map((r) => JSON.stringify(r) + "\n").join(""));
}
