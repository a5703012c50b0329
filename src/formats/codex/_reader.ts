/**
 * Reads a Codex CLI rollout, streaming, into turnlog records: one pass, memory bounded by the
 * call ids seen and the few messages that wait to learn which turn they belong to.
 *
 * @module
 */
import { exportedFromOf } from "../_writer.ts";
import { basename } from "../../_path.ts";
import { readLineChunks } from "../../io/mod.ts";
import { CHECKPOINT_VERSION, makeRecord } from "../../record/mod.ts";
import {
  countKind,
  FirstSeen,
  ignoredEntry,
  isObject,
  isoTime,
  type Json,
  lineProblem,
  numberOf,
  objectOf,
  parseJsonLine,
  problemEntry,
  recordAt,
  recordEntry,
  spanOf,
  stringOf,
  TimeSpan,
} from "../_line.ts";
import { type CodexFacts, type CodexHistorySource, mapCodexApproval } from "./_facts.ts";
import { FieldDrift } from "../_drift.ts";
import { noteCodexFields } from "./_fields.ts";
import { type CodexHistoryBase, findBaseRollout, historyBaseOf } from "./_base.ts";
import {
  type ForeignEntry,
  type ForeignFacts,
  type LineSpan,
  noTokens,
  type TokenTotals,
} from "../_types.ts";
import { UsageColumns } from "../_usage_columns.ts";
import { type CallContext, mapCodexItem, mapReplacementHistory } from "./_items.ts";
import { CodexTurns } from "./_turns.ts";
import { CallIdTable } from "../_call_ids.ts";
import { NumberedValues } from "../_numbered.ts";
import { CodexChecker, codexFindings } from "./_check.ts";
import type { ReadSessionOptions } from "../_adapter.ts";

/** Events whose content is elsewhere in the file or in a synthesized record: not counted. */
const ABSORBED_EVENTS = new Set([
  "task_started",
  "task_complete",
  "turn_aborted",
  "token_count",
  "user_message",
  "agent_message",
  "agent_reasoning",
  "agent_reasoning_raw_content",
  "agent_reasoning_section_break",
  "context_compacted",
  "exec_command_end",
  "patch_apply_end",
  // Codex 0.169: display copies of history items, and the settings turn_context also holds.
  "item_completed",
  "thread_settings_applied",
]);

const usageOf = (value: Json | undefined) => ({
  input: numberOf(value?.input_tokens) ?? 0,
  cached: numberOf(value?.cached_input_tokens) ?? 0,
  output: numberOf(value?.output_tokens) ?? 0,
  reasoning: numberOf(value?.reasoning_output_tokens) ?? 0,
  total: numberOf(value?.total_tokens) ?? 0,
});

/** The state of one read. */
export class CodexRead {
  readonly turns = new CodexTurns();
  readonly ignored: Record<string, number> = {};
  /** Fields of its own lines turnlog has never seen. */
  readonly fields = new FieldDrift();
  /**
   * Each call's tool name by call id (its index in `#toolNames`: a few tools, called 300,000
   * times), and the failure an event reported for a call (1) or its success (0).
   */
  readonly #calls = new CallIdTable();
  readonly #toolNames = new NumberedValues();
  readonly #reported = new CallIdTable();
  readonly calls: CallContext = {
    toolName: (id) => {
      const index = this.#calls.get(id);
      return index === undefined ? undefined : this.#toolNames.at(index);
    },
    reported: (id) => {
      const failed = this.#reported.get(id);
      return failed === undefined ? undefined : failed === 1;
    },
  };
  readonly models = new FirstSeen();
  readonly cwds = new FirstSeen();
  readonly times = new TimeSpan();
  readonly codex: CodexFacts = {
    originator: null,
    source: null,
    forkedFromId: null,
    inherited: null,
    sandbox: null,
    turnMarkers: "none",
    rollbacks: [],
  };
  tokens: TokenTotals | null = null;
  /** Each response's usage, as counted into `tokens`: columns, 32 against 120 bytes each. */
  readonly usage = new UsageColumns();
  meta: Json | undefined;
  gitBranch: string | null = null;
  version: string | null = null;
  approvalSource: string | null = null;
  firstPrompt: string | null = null;
  firstUserItem: string | undefined;
  problems = 0;
  lines = 0;
  sawTasks = false;
  /** The history the file's `session_meta` says it starts from, until it is read. */
  pendingBase: CodexHistoryBase | undefined;
  /** True while a fork's inherited history is read: its rollouts' `session_meta` lines pass. */
  inheriting = false;
  /** The last `token_count` totals counted: input, output, total. */
  #lastTotal = [-1, -1, -1];
  /** A `token_usage_record` counted a response whose `token_count` event has not come yet. */
  #recordedUsage = false;
  #lastContextTokens = 0;
  /** A user message item came since the last `user_message` event (its display copy). */
  #userItemPending = false;
  /** History items since the last checkpoint, as replay would count them. */
  #historyLength = 0;

  constructor(readonly path: string) {}

  line(value: Json, span: LineSpan): void {
    const time = isoTime(value.timestamp);
    if (time !== undefined) this.turns.clock = time;
    this.times.seeTime(time);
    // Every line comes here: its properties are loaded where they are named and tested here,
    // with no call per property (see stringOf).
    const type = value.type;
    const found = value.payload;
    const payload = typeof found === "object" && found !== null && !Array.isArray(found)
      ? found as Json
      : {};
    switch (type) {
      case "session_meta":
        if (this.inheriting) return;
        return this.#sessionMeta(payload, span, time);
      case "turn_context":
        return this.#turnContext(payload, span);
      case "response_item":
        return this.#item(payload, span);
      case "event_msg":
        return this.#event(payload, span);
      case "compacted":
        return this.#compacted(payload, span);
      case "token_usage_record":
        return this.#tokenUsageRecord(payload);
      case "world_state":
        // Codex 0.169's snapshot of the environment its injected messages already tell.
        return;
      default:
        // A type turnlog has no rule for (a newer Codex's): named as such, for `doctor`.
        if (typeof type === "string") return this.#ignore(span, `unknown:${type}`);
        this.problem(span, "unknown_type", 'a JSON object without a "type": not a Codex record');
    }
  }

  problem(span: LineSpan, kind: "unknown_type" | "invalid_record", what: string): void {
    this.problems++;
    this.turns.note(problemEntry(lineProblem(this.path, span, kind, what)));
  }

  #ignore(span: LineSpan, kind: string): void {
    countKind(this.ignored, kind);
    this.turns.note(ignoredEntry(span, kind));
  }

  #sessionMeta(payload: Json, span: LineSpan, time: string | undefined): void {
    if (this.meta !== undefined) return this.#ignore(span, "session_meta");
    this.meta = payload;
    const git = objectOf(payload.git);
    this.gitBranch = (git && stringOf(git.branch)) ?? null;
    this.version = stringOf(payload.cli_version) ?? null;
    this.codex.originator = stringOf(payload.originator) ?? null;
    const source = payload.source;
    this.codex.source = source === undefined
      ? null
      : typeof source === "string"
      ? source
      : JSON.stringify(source);
    this.codex.forkedFromId = stringOf(payload.forked_from_id) ?? null;
    this.pendingBase = historyBaseOf(payload);
    const cwd = stringOf(payload.cwd);
    this.cwds.see(cwd, span.line);
    this.turns.setMeta({
      id: stringOf(payload.id) ?? basename(this.path).replace(/\.jsonl(?:\.zst)?$/, ""),
      createdAt: isoTime(payload.timestamp) ?? time ?? this.turns.clock,
      cwd: cwd ?? "",
      modelProvider: stringOf(payload.model_provider) ?? "openai",
      span,
      importedFrom: exportedFromOf(payload.turnlog_exported_from),
    });
  }

  #turnContext(payload: Json, span: LineSpan): void {
    const model = stringOf(payload.model);
    if (model) {
      // The same model again keeps the string already held: each turn and each response's
      // usage name it, one copy per turn_context line held 7.5 MB of a 1 GB rollout's read.
      if (model !== this.turns.model) this.turns.model = model;
      this.models.see(model, span.line);
    }
    const approval = stringOf(payload.approval_policy);
    if (approval) {
      this.approvalSource = approval;
      this.turns.approval = mapCodexApproval(approval);
    }
    const sandbox = payload.sandbox_policy;
    const mode = isObject(sandbox) ? stringOf(sandbox.type) ?? stringOf(sandbox.mode) : sandbox;
    if (typeof mode === "string") this.codex.sandbox = mode;
    this.cwds.see(stringOf(payload.cwd), span.line);
    const turnId = stringOf(payload.turn_id);
    if (!this.turns.open && (this.turns.announced || this.turns.waiting)) {
      if (turnId !== undefined && this.codex.turnMarkers === "user_message") {
        this.codex.turnMarkers = "turn_context";
      }
      this.turns.openTurn(span, turnId);
      return;
    }
    // Without task events, a new turn id is a new turn.
    if (!this.sawTasks && turnId !== undefined && turnId !== this.turns.currentId) {
      if (this.codex.turnMarkers === "none") this.codex.turnMarkers = "turn_context";
      this.turns.startTurn(turnId, span);
      this.turns.openTurn(span, turnId);
    }
  }

  /** A call's tool name kept for its outputs: the first copy of each name is the one held. */
  #call(callId: string, name: string): void {
    this.#calls.set(callId, this.#toolNames.number(name));
  }

  #item(payload: Json, span: LineSpan): void {
    const found = payload.type;
    const type = typeof found === "string" ? found : "";
    const mapped = mapCodexItem(payload, this.calls, type);
    if (mapped.invalid !== undefined) return this.problem(span, "invalid_record", mapped.invalid);
    const entries: ForeignEntry[] = [];
    for (const item of mapped.items) {
      if (item.type === "function_call") this.#call(item.callId, item.name);
      if (item.type === "message" && item.role === "user") {
        this.#userItemPending = true;
        this.firstUserItem ??= item.content;
      }
      entries.push(recordEntry(span, recordAt("response_item", item, this.turns.clock)));
      this.#historyLength++;
    }
    for (const kind of mapped.ignored) {
      countKind(this.ignored, kind);
      entries.push(ignoredEntry(span, kind, mapped.thought));
    }
    if (mapped.fromModel || type.endsWith("_output")) {
      this.turns.inTurn(entries, span);
    } else {
      for (const entry of entries) {
        if (entry.record) this.turns.hold(entry);
        else this.turns.note(entry);
      }
    }
  }

  #event(payload: Json, span: LineSpan): void {
    const found = payload.type;
    const type = typeof found === "string" ? found : "";
    switch (type) {
      case "task_started":
        this.sawTasks = true;
        this.codex.turnMarkers = "task_events";
        this.turns.startTurn(stringOf(payload.turn_id), span);
        // From here `task_complete` says where a turn ends.
        this.turns.inferEnds = false;
        return;
      case "task_complete":
        this.turns.finishTurn(span, "succeeded");
        return;
      case "turn_aborted":
        this.turns.finishTurn(span, "cancelled", stringOf(payload.reason) ?? "aborted");
        return;
      case "token_count":
        return this.#tokenCount(payload);
      case "user_message":
        return this.#userMessage(payload, span);
      case "exec_command_end": {
        const callId = stringOf(payload.call_id);
        const code = numberOf(payload.exit_code);
        if (callId && code !== undefined) this.#reported.set(callId, code !== 0 ? 1 : 0);
        return;
      }
      case "patch_apply_end": {
        const callId = stringOf(payload.call_id);
        if (callId && typeof payload.success === "boolean") {
          this.#reported.set(callId, payload.success ? 0 : 1);
        }
        return;
      }
      case "thread_rolled_back":
        this.codex.rollbacks.push({ line: span.line, turns: numberOf(payload.num_turns) ?? 0 });
        return this.#ignore(span, "event_msg:thread_rolled_back");
    }
    if (!ABSORBED_EVENTS.has(type)) this.#ignore(span, `event_msg:${type || "unknown"}`);
  }

  #userMessage(payload: Json, span: LineSpan): void {
    const text = stringOf(payload.message) ?? "";
    this.firstPrompt ??= text;
    if (!this.sawTasks && (this.turns.waiting || !this.#userItemPending)) {
      // No task events: the prompt (and the context before it) opens a turn.
      if (this.codex.turnMarkers === "none") this.codex.turnMarkers = "user_message";
      this.turns.startTurn(undefined, span);
    }
    if (this.#userItemPending) {
      // The display copy of a user message item already read: counted once.
      this.#userItemPending = false;
      return;
    }
    // A user message only the event holds (a trimmed file): it is the history's copy.
    const message = { type: "message", role: "user", content: text } as const;
    this.turns.hold(recordEntry(span, recordAt("response_item", message, this.turns.clock)));
    this.#historyLength++;
    const images = payload.images;
    if (Array.isArray(images)) { for (const _ of images) this.#ignore(span, "image"); }
  }

  /**
   * A `token_count` event: the usage of the response just made, counted unless a
   * `token_usage_record` (Codex 0.169) already counted it, or the same totals came before.
   */
  #tokenCount(payload: Json): void {
    const info = objectOf(payload.info);
    if (!info) return;
    const totalUsage = objectOf(info.total_token_usage);
    const total = usageOf(totalUsage);
    const recorded = this.#recordedUsage;
    this.#recordedUsage = false;
    const last = this.#lastTotal;
    const same = total.input === last[0] && total.output === last[1] && total.total === last[2];
    if (same || recorded) return;
    last[0] = total.input;
    last[1] = total.output;
    last[2] = total.total;
    this.#addTokens(usageOf(objectOf(info.last_token_usage) ?? totalUsage));
  }

  /**
   * A `token_usage_record` (Codex 0.169): one response's usage, written at once, also for a
   * turn killed before its `token_count` event; its `thread_token_usage` is Codex's own total.
   */
  #tokenUsageRecord(payload: Json): void {
    const usage = objectOf(payload.usage);
    if (!usage) return;
    this.#recordedUsage = true;
    this.#addTokens(usageOf(usage));
  }

  #addTokens(last: ReturnType<typeof usageOf>): void {
    this.#lastContextTokens = last.total;
    const tokens = this.tokens ??= noTokens();
    tokens.input += last.input;
    tokens.output += last.output;
    tokens.cacheRead += last.cached;
    tokens.reasoningOutput += last.reasoning;
    tokens.total += last.input + last.output;
    const cached = Math.min(last.cached, last.input);
    this.usage.push({
      time: this.turns.clock,
      model: this.turns.model === "unknown" ? null : this.turns.model,
      input: last.input - cached,
      output: last.output,
      cacheRead: cached,
      cacheCreation: 0,
      reasoningOutput: last.reasoning,
    });
    this.turns.addUsage(last.input, last.output, last.total || last.input + last.output);
  }

  #compacted(payload: Json, span: LineSpan): void {
    const { items, ignored } = mapReplacementHistory(payload, this.calls);
    for (const item of items) {
      if (item.type === "function_call") this.#call(item.callId, item.name);
    }
    const remote = ignored.includes("compaction");
    const record = makeRecord("response_item", {
      type: "compaction_checkpoint",
      version: CHECKPOINT_VERSION,
      reason: remote ? "codex compacted (remote, encrypted summary)" : "codex compacted",
      tokensBefore: this.#lastContextTokens,
      removedItemCount: this.#historyLength,
      keptItemCount: items.length,
      replacementHistory: items,
    }, new Date(this.turns.clock));
    this.#historyLength = items.length;
    const entries: ForeignEntry[] = [recordEntry(span, record)];
    for (const kind of ignored) {
      countKind(this.ignored, kind);
      entries.push(ignoredEntry(span, kind));
    }
    this.turns.inTurn(entries, span);
  }
}

/** Entries handed on at once (see readCodexRollout). */
const HAND_ON = 64;

/**
 * A fork's inherited history read into `read` before the fork's own records, as Codex's
 * resume rebuilds it: the base thread's rollout up to the base's byte offset, its records with
 * an ordinal below the base's (that rollout's own base first, the same way).
 */
async function* inherit(read: CodexRead, base: CodexHistoryBase): AsyncGenerator<ForeignEntry[]> {
  read.codex.inherited = { ...base, sources: [], missing: null };
  read.inheriting = true;
  try {
    const own = stringOf(read.meta?.id);
    const seen = new Set(own === undefined ? [] : [own]);
    yield* inheritFrom(read, read.path, base, Infinity, seen);
  } finally {
    read.inheriting = false;
  }
}

async function* inheritFrom(
  read: CodexRead,
  from: string,
  base: CodexHistoryBase,
  ordinalLimit: number,
  seen: Set<string>,
): AsyncGenerator<ForeignEntry[]> {
  const inherited = read.codex.inherited!;
  if (seen.has(base.threadId)) {
    inherited.missing ??= `thread ${base.threadId} names itself as its own history`;
    return;
  }
  seen.add(base.threadId);
  const path = await findBaseRollout(from, base.threadId);
  if (path === null) {
    inherited.missing ??= `the rollout of thread ${base.threadId} is not in this Codex home`;
    return;
  }
  const source: CodexHistorySource = { threadId: base.threadId, path, lines: 0 };
  const limit = Math.min(ordinalLimit, base.endOrdinalExclusive ?? Infinity);
  const endByte = base.endByteOffset ?? Infinity;
  let first = true;
  chunks: for await (const lines of readLineChunks(path)) {
    for (const line of lines) {
      if (line.start >= endByte) break chunks;
      if (line.text.length === 0) continue;
      const parsed = parseJsonLine(path, line);
      // A line Codex could not read either: its own rollout's problem, not the fork's.
      if ("problem" in parsed) continue;
      const value = parsed.value;
      if (value.type === "session_meta") {
        const further = first ? historyBaseOf(objectOf(value.payload) ?? {}) : undefined;
        first = false;
        if (further !== undefined) yield* inheritFrom(read, path, further, limit, seen);
        continue;
      }
      first = false;
      const ordinal = numberOf(value.ordinal);
      if (ordinal !== undefined && ordinal >= limit) continue;
      read.line(value, { ...spanOf(line), source: path });
      source.lines++;
      if (read.turns.out.length >= HAND_ON) {
        yield read.turns.out;
        read.turns.out = [];
      }
    }
  }
  inherited.sources.push(source);
}

/**
 * Reads a Codex rollout into entries, a few at a time; the generator's return value is the
 * file's facts.
 * Turns come from `task_started`/`task_complete` by turn id, else from the turn ids of
 * `turn_context`, else from `user_message` events.
 */
export async function* readCodexRollout(
  path: string,
  sizeBytes: number,
  options: ReadSessionOptions = {},
): AsyncGenerator<ForeignEntry[], ForeignFacts> {
  const read = new CodexRead(path);
  // The check on the way: with no bad line, its view is the file's lines (its findings go out with the facts).
  const checker = options.check === false ? undefined : new CodexChecker();
  let last: LineSpan | undefined;
  // A chunk's lines at a time: one step of the generator per chunk, not per line.
  for await (const lines of readLineChunks(path)) {
    let done = false;
    for (const line of lines) {
      if (line.text.length === 0 && line.terminated) continue;
      if (line.start >= sizeBytes) {
        done = true;
        break;
      }
      const k = read.lines++;
      const span = spanOf(line);
      last = span;
      const parsed = parseJsonLine(path, line, options.onLine);
      if ("problem" in parsed) {
        read.problems++;
        read.turns.note(problemEntry(parsed.problem));
      } else {
        read.line(parsed.value, span);
        noteCodexFields(read.fields, parsed.value, span.line);
        checker?.line(parsed.value, k, line);
        if (read.pendingBase !== undefined) {
          const base = read.pendingBase;
          read.pendingBase = undefined;
          yield* inherit(read, base);
        }
      }
      // Entries handed on every few lines, not at the chunk's end: held for a whole chunk,
      // they (tool outputs and all) outlive the young generation and are copied by its
      // collections, or promoted.
      if (read.turns.out.length >= HAND_ON) {
        yield read.turns.out;
        read.turns.out = [];
      }
    }
    // Entries in one step (the array is handed over: a new one is started).
    if (read.turns.out.length > 0) yield read.turns.out;
    read.turns.out = [];
    if (done) break;
  }
  read.turns.end(last);
  if (read.turns.out.length > 0) yield read.turns.out;
  read.turns.out = [];
  const facts = codexFacts(read, sizeBytes, options.compactUsage);
  if (checker === undefined || read.problems > 0) return facts;
  return { ...facts, checked: codexFindings(path, checker.finish()) };
}

/**
 * The facts of a rollout read by `read`, up to `sizeBytes`; its usage as columns when
 * `compactUsage`, else as objects.
 */
export function codexFacts(read: CodexRead, sizeBytes: number, compactUsage = false): ForeignFacts {
  const meta = read.meta ?? {};
  return {
    format: "codex",
    path: read.path,
    sizeBytes,
    lines: read.lines,
    state: read.lines === 0 ? "empty" : "records",
    sessionId: stringOf(meta.id) ?? null,
    sessionIds: stringOf(meta.id) ? [stringOf(meta.id)!] : [],
    title: null,
    firstPrompt: read.firstPrompt ?? read.firstUserItem ?? null,
    models: read.models.values,
    cwd: stringOf(meta.cwd) ?? read.cwds.values[0] ?? null,
    cwds: read.cwds.entries.map(({ value, line }) => ({ cwd: value, line })),
    gitBranch: read.gitBranch,
    created: isoTime(meta.timestamp) ?? read.times.first,
    updated: read.times.last,
    version: read.version,
    approval: { mapped: read.turns.approval, source: read.approvalSource },
    tokens: read.tokens,
    ...(compactUsage ? { usageColumns: read.usage } : { usage: read.usage.toArray() }),
    turns: read.turns.turns,
    forks: [],
    subagents: [],
    ignored: read.ignored,
    // Only when there are some: facts are compared and printed whole.
    ...(Object.keys(read.fields.seen).length > 0 ? { unknownFields: read.fields.seen } : {}),
    problems: read.problems,
    formatFacts: read.codex,
  };
}
