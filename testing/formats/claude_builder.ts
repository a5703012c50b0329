/**
 * Writes Claude Code transcripts line by line in their real shapes: lines chained by
 * `parentUuid`, one API response split over several lines sharing `message.id` with the usage
 * repeated, tool results in user lines, progress and system lines in the chain, compaction
 * boundaries, and the lines without a uuid (titles, file history, queue operations).
 * Deterministic: ids come from counters, times from a fixed clock.
 *
 * @module
 */

/** One content block of an assistant response. */
export type AssistantBlock =
  | { text: string }
  | { thinking: string }
  | { toolUse: { id: string; name: string; input: Record<string, unknown> } }
  | { image: true };

/** Where a line hangs: after the previous line (the default), off a given uuid, or a root. */
export interface LineOptions {
  parent?: string | null;
  uuid?: string;
  /** Fields merged into the line as they are. */
  extra?: Record<string, unknown>;
}

/** What every line of the transcript carries. */
export interface ClaudeSessionOptions {
  sessionId?: string;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  sidechain?: boolean;
  agentId?: string;
  model?: string;
}

/** The session id of the fixtures. */
export const CLAUDE_SESSION_ID = "7acd37a8-0000-4000-8000-000000000001";

/** Builds a transcript's lines. */
export class ClaudeTranscriptBuilder {
  readonly lines: string[] = [];
  /** The uuid the next line hangs off by default. */
  last: string | null = null;
  #clock: number;
  #uuids = 0;
  #messages = 0;
  readonly #options: Required<Omit<ClaudeSessionOptions, "agentId">> & { agentId?: string };

  constructor(options: ClaudeSessionOptions = {}, start = Date.UTC(2026, 0, 23, 17, 0, 0)) {
    this.#clock = start;
    this.#options = {
      sessionId: options.sessionId ?? CLAUDE_SESSION_ID,
      cwd: options.cwd ?? "/work/project",
      version: options.version ?? "2.1.17",
      gitBranch: options.gitBranch ?? "main",
      sidechain: options.sidechain ?? false,
      model: options.model ?? "claude-opus-4-5-20251101",
      ...(options.agentId === undefined ? {} : { agentId: options.agentId }),
    };
  }

  /** A fresh uuid (deterministic). */
  uuid(): string {
    return `00000000-0000-4000-8000-${(++this.#uuids).toString(16).padStart(12, "0")}`;
  }

  /** Changes what later lines carry (a `cd`, another model). */
  set(options: ClaudeSessionOptions): this {
    Object.assign(this.#options, options);
    return this;
  }

  #push(fields: Record<string, unknown>, options: LineOptions = {}): string {
    const uuid = options.uuid ?? this.uuid();
    const parentUuid = options.parent === undefined ? this.last : options.parent;
    const timestamp = new Date(this.#clock).toISOString();
    this.#clock += 1000;
    const { sessionId, cwd, version, gitBranch, sidechain, agentId } = this.#options;
    this.lines.push(JSON.stringify({
      parentUuid,
      isSidechain: sidechain,
      userType: "external",
      cwd,
      sessionId,
      version,
      gitBranch,
      ...(agentId === undefined ? {} : { agentId }),
      ...fields,
      uuid,
      timestamp,
      ...options.extra,
    }));
    this.last = uuid;
    return uuid;
  }

  /** A user line with text (a prompt, unless `extra` marks it `isMeta` or `isCompactSummary`). */
  user(text: string, options: LineOptions = {}): string {
    return this.#push({ type: "user", message: { role: "user", content: text } }, options);
  }

  /**
   * `count` turns of a prompt and its answer (`Question n`, `Answer n`, each ended); returns the
   * uuid of each turn's last line, what a rewind's new prompt hangs off.
   */
  questions(count: number): string[] {
    const ends: string[] = [];
    for (let n = 1; n <= count; n++) {
      this.user(`Question ${n}`);
      this.assistant([{ text: `Answer ${n}` }], { stop: "end_turn" });
      ends.push(this.last!);
    }
    return ends;
  }

  /** A user line with content blocks (text and images). */
  userBlocks(blocks: unknown[], options: LineOptions = {}): string {
    return this.#push({ type: "user", message: { role: "user", content: blocks } }, options);
  }

  /**
   * One API response: by default one line per block (as Claude Code writes it), all sharing
   * `message.id` and `requestId`, each repeating the usage with a growing output count.
   * Returns the uuids of its lines.
   */
  assistant(
    blocks: AssistantBlock[],
    options: LineOptions & {
      split?: boolean;
      stop?: string;
      usage?: { input: number; output: number };
      /** Another line of an earlier response (its `message.id`): Claude Code's parallel calls. */
      messageId?: string;
    } = {},
  ): string[] {
    const id = options.messageId ?? `msg_${(++this.#messages).toString().padStart(4, "0")}`;
    const requestId = `req_${id.slice(4)}`;
    const usage = options.usage ?? { input: 10, output: 50 };
    const content = blocks.map((block) =>
      "text" in block
        ? { type: "text", text: block.text }
        : "thinking" in block
        ? { type: "thinking", thinking: block.thinking, signature: "sig" }
        : "image" in block
        ? { type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }
        : { type: "tool_use", ...block.toolUse }
    );
    const groups = options.split === false ? [content] : content.map((block) => [block]);
    const uuids: string[] = [];
    groups.forEach((group, index) => {
      const last = index === groups.length - 1;
      const line = this.#push({
        type: "assistant",
        requestId,
        message: {
          model: this.#options.model,
          id,
          type: "message",
          role: "assistant",
          content: group,
          stop_reason: last ? options.stop ?? null : null,
          usage: {
            input_tokens: usage.input,
            cache_creation_input_tokens: 100,
            cache_read_input_tokens: 1000,
            output_tokens: last ? usage.output : 1,
          },
        },
      }, index === 0 ? options : options.extra === undefined ? {} : { extra: options.extra });
      uuids.push(line);
    });
    return uuids;
  }

  /** A user line holding one tool result (with Claude Code's `toolUseResult` beside it). */
  toolResult(
    toolUseId: string,
    content: string | unknown[],
    options: LineOptions & { isError?: boolean; result?: unknown } = {},
  ): string {
    const block = {
      tool_use_id: toolUseId,
      type: "tool_result",
      content,
      ...(options.isError === undefined ? {} : { is_error: options.isError }),
    };
    return this.#push({
      type: "user",
      message: { role: "user", content: [block] },
      toolUseResult: options.result ?? (typeof content === "string" ? { stdout: content } : {}),
    }, options);
  }

  /** A `system` line (a hook message, `turn_duration`, `compact_boundary` ...). */
  system(fields: Record<string, unknown>, options: LineOptions = {}): string {
    return this.#push({ type: "system", level: "info", isMeta: false, ...fields }, options);
  }

  /** A `progress` line (hooks, subagents). */
  progress(
    data: Record<string, unknown> = { type: "hook_progress", hookEvent: "PreToolUse" },
    options: LineOptions = {},
  ): string {
    return this.#push({ type: "progress", data, toolUseID: "toolu_progress" }, options);
  }

  /** An `attachment` line. */
  attachment(options: LineOptions = {}): string {
    return this.#push({ type: "attachment", attachment: { type: "todo", content: [] } }, options);
  }

  /** A `compact_boundary` line (a root: `parentUuid` null) and the summary line after it. */
  compaction(
    summary: string,
    options: {
      logicalParent: string;
      trigger?: string;
      preTokens?: number;
      preserved?: { head: string; tail: string };
    },
  ): { boundary: string; summary: string } {
    const boundary = this.uuid();
    const summaryUuid = this.uuid();
    const preserved = options.preserved === undefined ? {} : {
      preservedSegment: {
        headUuid: options.preserved.head,
        anchorUuid: summaryUuid,
        tailUuid: options.preserved.tail,
      },
    };
    this.system({
      subtype: "compact_boundary",
      content: "Conversation compacted",
      logicalParentUuid: options.logicalParent,
      compactMetadata: {
        trigger: options.trigger ?? "auto",
        preTokens: options.preTokens ?? 150000,
        ...preserved,
      },
    }, { parent: null, uuid: boundary });
    this.user(summary, {
      uuid: summaryUuid,
      extra: { isCompactSummary: true, isVisibleInTranscriptOnly: true },
    });
    return { boundary, summary: summaryUuid };
  }

  /** A line without a uuid (`summary`, `file-history-snapshot`, `queue-operation` ...). */
  meta(fields: Record<string, unknown>): this {
    this.lines.push(JSON.stringify(fields));
    return this;
  }

  /** Any text as a line of its own (damage). */
  raw(text: string): this {
    this.lines.push(text);
    return this;
  }

  /** The transcript's text, one line each, with a final newline (none when empty). */
  text(): string {
    return this.lines.length === 0 ? "" : this.lines.join("\n") + "\n";
  }
}
