/**
 * The first pass over a Claude Code transcript: one small node per line (its ids, kind and
 * byte range, never its text), and the facts that need every line (tokens, models, session
 * ids, working directories, titles).
 *
 * @module
 */
import { forEachLine, type Line } from "../../io/mod.ts";
import {
  FirstSeen,
  isObject,
  isoTime,
  type Json,
  num,
  obj,
  parseJsonLine,
  str,
  TimeSpan,
} from "../_line.ts";

/** What a line is, as far as the conversation goes. */
export type NodeKind =
  | "problem"
  | "meta"
  | "prompt"
  | "tool_result"
  | "user_meta"
  | "compact_summary"
  | "command"
  | "local_output"
  | "interrupt"
  | "assistant"
  | "boundary"
  | "turn_duration"
  | "system"
  | "summary"
  | "progress"
  | "attachment"
  | "other";

/** One non-empty line of the file. */
export interface Node {
  line: number;
  start: number;
  end: number;
  kind: NodeKind;
  /** The kind an ignored entry counts it under, for lines turnlog's model cannot hold. */
  label: string | undefined;
  uuid: string | undefined;
  parentUuid: string | undefined;
  /** The parent's node index, or -1; resolved after the pass. */
  parent: number;
  sidechain: boolean;
  /** `message.id` of an assistant line: the lines of one API response share it. */
  messageId: string | undefined;
  model: string | undefined;
  /** Another line with this uuid counts instead (see {@linkcode indexTranscript}). */
  superseded: boolean;
  /** `compact_boundary` only: the line it continues and the preserved segment. */
  boundary: BoundaryInfo | undefined;
  /**
   * A line with a `label` only: its time and permission mode, all the second pass needs of it
   * (it is not read again unless a checkpoint keeps it).
   */
  time: string | undefined;
  mode: string | undefined;
}

/** What a `compact_boundary` line says about the conversation it cuts. */
export interface BoundaryInfo {
  logicalParentUuid: string | undefined;
  headUuid: string | undefined;
  anchorUuid: string | undefined;
  /** The preserved messages' uuids, in order, when the line lists them. */
  preserved: string[];
  trigger: string | undefined;
  preTokens: number | undefined;
}

/** Token usage of one API response, the largest of each field over its lines. */
export interface MessageUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
}

/** Everything the first pass learns. */
export interface ClaudeIndex {
  nodes: Node[];
  byUuid: Map<string, number>;
  /** Usage per `message.id` and `requestId`: counted once however many lines repeat it. */
  usage: Map<string, MessageUsage>;
  sessionIds: FirstSeen;
  cwds: FirstSeen;
  gitBranches: FirstSeen;
  models: FirstSeen;
  times: TimeSpan;
  version: string | undefined;
  permissionMode: string | undefined;
  /** Titles: `summary` lines by the leaf they name, and a custom title. */
  summaries: { summary: string; leafUuid: string | undefined }[];
  customTitle: string | undefined;
  /** Agent ids the session names (a Task tool's result), with the first line naming each. */
  agentIds: Map<string, number>;
  /** The file's own agent id, when it is a subagent's transcript. */
  agentId: string | undefined;
  hasTurnDuration: boolean;
  /** Bytes the pass covered: a file that grows meanwhile is read up to here, twice. */
  endOffset: number;
}

const LOCAL_OUTPUT =
  /^\s*<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr|bash-input)>/;
const COMMAND = /^\s*<(command-name|command-message)>/;
const INTERRUPT = /^\[Request interrupted by user/;

/** The first text of a user message's content. */
function firstText(content: unknown): string | undefined {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  for (const block of content) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") {
      return block.text;
    }
  }
  return undefined;
}

function userKind(value: Json, message: Json): NodeKind {
  if (value.isCompactSummary === true) return "compact_summary";
  const content = message.content;
  if (Array.isArray(content) && content.some((b) => isObject(b) && b.type === "tool_result")) {
    return "tool_result";
  }
  if (value.isMeta === true) return "user_meta";
  const text = firstText(content) ?? "";
  if (INTERRUPT.test(text)) return "interrupt";
  if (LOCAL_OUTPUT.test(text)) return "local_output";
  if (COMMAND.test(text)) return "command";
  return "prompt";
}

function boundaryInfo(value: Json): BoundaryInfo {
  const meta = obj(value, "compactMetadata") ?? {};
  const segment = obj(meta, "preservedSegment") ?? {};
  const listed = obj(meta, "preservedMessages")?.uuids;
  return {
    logicalParentUuid: str(value, "logicalParentUuid"),
    headUuid: str(segment, "headUuid"),
    anchorUuid: str(segment, "anchorUuid"),
    preserved: Array.isArray(listed)
      ? listed.filter((u): u is string => typeof u === "string")
      : [],
    trigger: str(meta, "trigger"),
    preTokens: num(meta, "preTokens"),
  };
}

/** Lines without a uuid whose facts the reader takes (titles, the permission mode). */
const ABSORBED: ReadonlySet<string> = new Set([
  "summary",
  "last-prompt",
  "permission-mode",
  "custom-title",
]);

/**
 * Claude Code's own bookkeeping, known by name and counted as ignored under it: nothing of the
 * conversation. 2.1.328 adds the request log (`api-request`, its `api-request-shape` and
 * `api-request-blob`s), `atis-latch`, `tools-used`, `cost-state` and `mode`. Any other type
 * is counted as `unknown:<type>`.
 */
const BOOKKEEPING: ReadonlySet<string> = new Set([
  "file-history-snapshot",
  "queue-operation",
  "atis-latch",
  "api-request-shape",
  "api-request-blob",
  "api-request",
  "tools-used",
  "cost-state",
  "mode",
]);

/** The kind and ignored label of a line that has been parsed. */
function classify(value: Json): { kind: NodeKind; label: string | undefined } {
  const type = str(value, "type") ?? "";
  const hasUuid = typeof value.uuid === "string";
  const message = obj(value, "message");
  if (type === "user" && message) return { kind: userKind(value, message), label: undefined };
  if (type === "assistant" && message) return { kind: "assistant", label: undefined };
  if (!hasUuid) {
    if (ABSORBED.has(type)) return { kind: "meta", label: undefined };
    return { kind: "meta", label: BOOKKEEPING.has(type) ? type : `unknown:${type || "line"}` };
  }
  switch (type) {
    case "system": {
      const subtype = str(value, "subtype");
      if (subtype === "compact_boundary") return { kind: "boundary", label: undefined };
      if (subtype === "turn_duration") return { kind: "turn_duration", label: undefined };
      return { kind: "system", label: subtype ? `system:${subtype}` : "system" };
    }
    case "summary":
      return { kind: "summary", label: undefined };
    case "progress":
      return { kind: "progress", label: "progress" };
    case "attachment":
      return { kind: "attachment", label: "attachment" };
    default:
      return { kind: "other", label: type || "unknown_line" };
  }
}

function newIndex(): ClaudeIndex {
  return {
    nodes: [],
    byUuid: new Map(),
    usage: new Map(),
    sessionIds: new FirstSeen(),
    cwds: new FirstSeen(),
    gitBranches: new FirstSeen(),
    models: new FirstSeen(),
    times: new TimeSpan(),
    version: undefined,
    permissionMode: undefined,
    summaries: [],
    customTitle: undefined,
    agentIds: new Map(),
    agentId: undefined,
    hasTurnDuration: false,
    endOffset: 0,
  };
}

/** The key usage is counted once under: the API response's id and its request's id. */
export function usageKey(value: Json, message: Json): string | undefined {
  const id = str(message, "id");
  const request = str(value, "requestId");
  return id === undefined && request === undefined ? undefined : `${id ?? ""}|${request ?? ""}`;
}

function noteUsage(index: ClaudeIndex, value: Json, message: Json): void {
  const usage = obj(message, "usage");
  const key = usageKey(value, message);
  if (!usage || key === undefined) return;
  const seen = index.usage.get(key) ?? { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
  // A split response repeats its usage on every line; the later lines carry the final output.
  seen.input = Math.max(seen.input, num(usage, "input_tokens") ?? 0);
  seen.output = Math.max(seen.output, num(usage, "output_tokens") ?? 0);
  seen.cacheRead = Math.max(seen.cacheRead, num(usage, "cache_read_input_tokens") ?? 0);
  seen.cacheCreation = Math.max(seen.cacheCreation, num(usage, "cache_creation_input_tokens") ?? 0);
  index.usage.set(key, seen);
}

function noteFacts(index: ClaudeIndex, value: Json, node: Node): void {
  index.times.see(value.timestamp);
  index.sessionIds.see(str(value, "sessionId"), node.line);
  index.cwds.see(str(value, "cwd"), node.line);
  index.gitBranches.see(str(value, "gitBranch"), node.line);
  index.version = str(value, "version") ?? index.version;
  index.agentId ??= str(value, "agentId");
  const mode = str(value, "permissionMode");
  if (mode !== undefined) index.permissionMode = mode;
  const type = str(value, "type");
  if (type === "summary" && typeof value.summary === "string") {
    index.summaries.push({ summary: value.summary, leafUuid: str(value, "leafUuid") });
  }
  if (type === "custom-title") index.customTitle = str(value, "customTitle") ?? index.customTitle;
  const result = obj(value, "toolUseResult");
  const agent = result && str(result, "agentId");
  if (agent !== undefined && !index.agentIds.has(agent)) index.agentIds.set(agent, node.line);
  if (node.kind === "turn_duration") index.hasTurnDuration = true;
}

function nodeOf(value: Json, span: { line: number; start: number; end: number }): Node {
  const { kind, label } = classify(value);
  const message = obj(value, "message");
  const model = kind === "assistant" && message ? str(message, "model") : undefined;
  return {
    line: span.line,
    start: span.start,
    end: span.end,
    kind,
    label,
    uuid: str(value, "uuid"),
    parentUuid: str(value, "parentUuid"),
    parent: -1,
    sidechain: value.isSidechain === true,
    messageId: kind === "assistant" && message ? str(message, "id") : undefined,
    model,
    superseded: false,
    boundary: kind === "boundary" ? boundaryInfo(value) : undefined,
    time: label === undefined ? undefined : isoTime(value.timestamp),
    mode: label === undefined ? undefined : str(value, "permissionMode"),
  };
}

/** Options of {@linkcode indexTranscript}. */
export interface IndexOptions {
  /** The lines to index instead of the file's own (repair indexes the file as it will be). */
  lines?: AsyncIterable<Line>;
  /** Called with each line's parsed object (not a bad line's), as it is indexed. */
  parsed?: (value: Json, line: Line, at: number, node: Node) => void;
}

/** Reads the whole file once into an index; texts are parsed and dropped line by line. */
export async function indexTranscript(
  path: string,
  sizeBytes: number,
  options: IndexOptions = {},
): Promise<ClaudeIndex> {
  const index = newIndex();
  const take = (line: Line) => indexLine(index, path, line, sizeBytes, options.parsed);
  if (options.lines) {
    for await (const line of options.lines) if (!take(line)) break;
  } else {
    // The file's own lines through a callback: no step of a generator per line.
    await forEachLine(path, take);
  }
  for (const node of index.nodes) {
    if (node.parentUuid === undefined) continue;
    node.parent = index.byUuid.get(node.parentUuid) ?? -1;
    // The parent's own string: one copy of each uuid kept, not two.
    if (node.parent >= 0) node.parentUuid = index.nodes[node.parent]!.uuid;
  }
  return index;
}

/** Adds one line to the index; false once the line is past `sizeBytes` (the end). */
function indexLine(
  index: ClaudeIndex,
  path: string,
  line: Line,
  sizeBytes: number,
  parsedBy: IndexOptions["parsed"],
): boolean {
  if (line.text.length === 0 && line.terminated) return true;
  if (line.start >= sizeBytes) return false;
  index.endOffset = line.end;
  const parsed = parseJsonLine(path, line);
  if ("problem" in parsed) {
    index.nodes.push({ ...nodeOf({}, line), kind: "problem", label: undefined });
    return true;
  }
  const node = nodeOf(parsed.value, line);
  const at = index.nodes.length;
  index.nodes.push(node);
  if (node.uuid !== undefined) {
    const earlier = index.byUuid.get(node.uuid);
    // A resume replays lines as they were: the first copy keeps its place in the file. A
    // copy with another parent (a message a compaction kept) moves the line: the last counts.
    if (earlier !== undefined && index.nodes[earlier]!.parentUuid === node.parentUuid) {
      node.superseded = true;
    } else {
      if (earlier !== undefined) index.nodes[earlier]!.superseded = true;
      index.byUuid.set(node.uuid, at);
    }
  }
  noteFacts(index, parsed.value, node);
  parsedBy?.(parsed.value, line, at, node);
  const message = obj(parsed.value, "message");
  if (node.kind === "assistant" && message) {
    if (node.model && node.model !== "<synthetic>") index.models.see(node.model, node.line);
    noteUsage(index, parsed.value, message);
  }
  return true;
}
