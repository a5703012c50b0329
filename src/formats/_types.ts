/**
 * The shared interface of the format adapters: what reading another tool's session file
 * yields (turnlog records, each with the line it came from) and what is known about the file
 * once it has been read.
 *
 * @module
 */
import type { ToolCost, UsageEvent } from "./_usage.ts";
import type { UsageEventList } from "./_usage_columns.ts";
import type { ApprovalMode, LineProblem, SessionRecord } from "../record/mod.ts";
// Its own module: a listing that names an unknown format throws it without loading these types.
export { ForeignSessionError, NotAFileError } from "./_errors.ts";

/**
 * Another tool's format, by its adapter's name (`codex`, `claude-code`): the names are written
 * once, in the adapters `src/formats/registry.ts` lists.
 */
export type ForeignFormat = string;

/** A session file's format: `turnlog` (turnlog's own, the default) or another tool's. */
export type SessionFormat = "turnlog" | ForeignFormat;

/** turnlog's own format: the default every other format is told apart from. */
export const TURNLOG_FORMAT = "turnlog";

/** Where an entry came from: a line number and the line's byte range, terminator included. */
export interface LineSpan {
  /** 1-based line number. */
  line: number;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past the line's terminator. */
  end: number;
  /**
   * The file the line is in, when it is not the session file read (a Codex fork's inherited
   * history, read from the rollout it forked from); absent for the file's own lines.
   */
  source?: string;
}

/**
 * One thing read from a session file, in order: a turnlog record (several may share a line:
 * a line can hold a message and tool calls), something turnlog's model cannot hold, named by
 * kind (`reasoning`, `thinking`, `image`, `progress`, ...; thinking with its text when the file
 * holds it readable), or a line that is not valid.
 */
export type ForeignEntry =
  | LineSpan & { record: SessionRecord; ignored?: undefined; problem?: undefined }
  | LineSpan & {
    ignored: string;
    /** The readable text of thinking (`thinking`, `reasoning`, `thoughts`), when the file has it. */
    thought?: string;
    record?: undefined;
    problem?: undefined;
  }
  | LineSpan & { problem: LineProblem; record?: undefined; ignored?: undefined };

/**
 * What a file holds: conversation records, nothing at all, or only lines that are not part of
 * a conversation (Claude Code's title, file-history and queue lines).
 */
export type SessionState = "records" | "empty" | "metadata-only";

/**
 * Tokens the model read and wrote. `input` is every prompt token (cached ones included, in
 * both formats), `cacheRead` the part served from a cache, `cacheCreation` the part written to
 * one (Claude), `reasoningOutput` the part of `output` spent reasoning (Codex).
 */
export interface TokenTotals {
  /** Every prompt token, cached ones included. */
  input: number;
  /** Tokens the model wrote. */
  output: number;
  /** Prompt tokens served from a cache. */
  cacheRead: number;
  /** Prompt tokens written to a cache (Claude). */
  cacheCreation: number;
  /** Output tokens spent reasoning (Codex). */
  reasoningOutput: number;
  /** `input` plus `output`. */
  total: number;
}

/** Token totals of nothing yet, to add to. */
export function noTokens(): TokenTotals {
  return { input: 0, output: 0, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0, total: 0 };
}

/** How a branch that is not the conversation left it. */
export type ForkKind =
  | "rewind"
  | "retry"
  | "local_command"
  | "sidechain"
  | "separate_root"
  | "other";

/** A branch of a Claude Code transcript that is not the active one. */
export interface ForeignFork {
  /** How the branch left the conversation. */
  kind: ForkKind;
  /** The active-branch line it hangs off, or null for a tree of its own. */
  fromLine: number | null;
  /** The branch's first line. */
  firstLine: number;
  /** The `uuid` of the branch's first line (Claude Code names every line), or null. */
  uuid: string | null;
  /** The branch's last line. */
  lastLine: number;
  /** Lines in the branch. */
  lines: number;
  /** User and assistant lines in the branch. */
  messages: number;
}

/** A subagent's transcript that belongs to the session. */
export interface SubagentLink {
  /** The subagent transcript's path. */
  path: string;
  /** The agent id its file name carries. */
  agentId: string | null;
  /** `sidecar`: an old `agent-*.jsonl` beside the session; `folder`: `<id>/subagents/`. */
  style: "sidecar" | "folder";
  /** The session line that names the agent (the Task tool's result), or null. */
  line: number | null;
}

/** The approval policy: as turnlog maps it, and the tool's own words for it. */
export interface ApprovalFacts {
  /** turnlog's approval mode. */
  mapped: ApprovalMode;
  /** Codex's `approval_policy` or Claude Code's `permissionMode`; null when the file has none. */
  source: string | null;
}

/**
 * Facts only one format has (Codex's originator and rollbacks, Claude Code's branch walk), in
 * the shape its adapter's folder exports with a reader of it (`codexFactsOf`,
 * `claudeCodeFactsOf`).
 */
export type FormatFacts = object;

/** What is known about a session file once it has been read. */
export interface ForeignFacts {
  /** The file's format. */
  format: SessionFormat;
  /** The file's path. */
  path: string;
  /** The file's size when it was read. */
  sizeBytes: number;
  /** Non-empty lines. */
  lines: number;
  /** Whether it holds a conversation. */
  state: SessionState;
  /** The session's id (the synthesized `session_meta.id`); null for an empty file. */
  sessionId: string | null;
  /** Every session id the lines carry (a resumed Claude Code file can hold several). */
  sessionIds: string[];
  /** A title the file gives the session. */
  title: string | null;
  /** The first real prompt (not injected context). */
  firstPrompt: string | null;
  /** Models in the order they first answered. */
  models: string[];
  /** The first working directory. */
  cwd: string | null;
  /** Each working directory with the line where it first appears. */
  cwds: { cwd: string; line: number }[];
  /** The git branch the session started on. */
  gitBranch: string | null;
  /** The earliest time in the file. */
  created: string | null;
  /** The latest time in the file. */
  updated: string | null;
  /** The writing tool's version. */
  version: string | null;
  /** The approval policy, mapped and as written. */
  approval: ApprovalFacts;
  /** Tokens used, counted once per model response; null when the file has none. */
  tokens: TokenTotals | null;
  /**
   * Each model response's tokens with its time and model, counted as `tokens` counts them
   * (what a cost is reckoned from); absent when the reader keeps none (turnlog's own files).
   */
  usage?: UsageEvent[];
  /**
   * The same events as columns, in place of `usage`, when the read was asked for them
   * (`ReadSessionOptions.compactUsage`) and the format's reader keeps them so.
   */
  usageColumns?: UsageEventList & { toArray(): UsageEvent[] };
  /** The tool's own cost of the session, where the file keeps one (Claude Code's `cost-state`). */
  toolCost?: ToolCost | null;
  /** Turns read (`turn_context` records synthesized). */
  turns: number;
  /** Branches other than the active one (Claude Code). */
  forks: ForeignFork[];
  /** Subagent transcripts that belong to the session (Claude Code). */
  subagents: SubagentLink[];
  /** What turnlog's model could not hold, by kind. */
  ignored: Record<string, number>;
  /**
   * Fields of known records that turnlog has never seen (the drift of the format), by
   * `<where>.<key>`, for the formats whose reader looks (at most `MAX_UNKNOWN_FIELDS` a file).
   */
  unknownFields?: Record<string, FieldSighting>;
  /** Lines that are not valid. */
  problems: number;
  /** Facts only the file's format has, in its adapter's shape; null for turnlog's own files. */
  formatFacts: FormatFacts | null;
  /**
   * The findings of the format's check, made by the read on the way (a whole read of a file
   * without bad lines knows every line the check needs); absent when the read made none (asked
   * not to, or a bad line that the check's own view of the file reads differently).
   */
  checked?: ValidationFinding[];
}

/** A line of a patch as a page shows it: added, removed, kept, or a hunk's heading. */
export interface PatchLine {
  /** What the line does. */
  kind: "add" | "remove" | "context" | "hunk";
  /** The line without its `+`, `-` or ` ` marker. */
  text: string;
}

/**
 * A change to a file a tool call asks for, as a page shows it (as a diff): the text replaced
 * and its replacement (Claude Code's `Edit`), or a patch's lines as the tool wrote them
 * (Codex's `apply_patch`).
 */
export type ToolEdit =
  | { kind: "replace"; path: string | null; before: string; after: string }
  | { kind: "patch"; path: string | null; lines: PatchLine[] };

/**
 * What a validator finds: a line its tool's reader cannot read (`bad_line`), a call not
 * answered before the next message (`unanswered_call`), a result no call right before it asked
 * for (`unexpected_result`), a parent chain that does not reach its root (`broken_chain`), or a
 * record numbered out of its rollout's order (`bad_ordinal`: Codex's paginated rollouts).
 */
export type ValidationKind =
  | "bad_line"
  | "unanswered_call"
  | "unexpected_result"
  | "broken_chain"
  | "bad_ordinal";

/** One thing the tool's API (or its reader) would refuse. */
export interface ValidationFinding {
  /** What is wrong. */
  kind: ValidationKind;
  /** The line it is on. */
  line: number;
  /** The call id, for a call or a result. */
  callId: string | null;
  /** `path:line: what is wrong`. */
  message: string;
}

/** Where an unknown field was seen in one file. */
export interface FieldSighting {
  /** Lines that hold it. */
  lines: number;
  /** The first of them (1-based). */
  line: number;
}
