/**
 * Writes Codex CLI rollouts line by line in their real shapes (the `{timestamp, type,
 * payload}` envelope, task events, per-request or per-turn `turn_context`, token counts,
 * compaction), for tests and benchmarks. Deterministic: times come from a fixed clock.
 *
 * @module
 */

/** Token usage in Codex's words. */
export interface CodexTokens {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

/** What the rollout's `session_meta` says. */
export interface CodexMetaOptions {
  id?: string;
  cwd?: string;
  cliVersion?: string;
  originator?: string;
  branch?: string;
  modelProvider?: string;
}

/** The first id of a rollout, a UUIDv7 of 2026-02-23T12:00:00Z. */
export const CODEX_SESSION_ID = "019c8a4c-0000-7000-8000-000000000001";

/** Builds a rollout's lines. */
export class CodexRolloutBuilder {
  readonly lines: string[] = [];
  #clock: number;
  #total: CodexTokens = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };

  constructor(start = Date.UTC(2026, 1, 23, 12, 0, 0)) {
    this.#clock = start;
  }

  #line(type: string, payload: unknown): this {
    const timestamp = new Date(this.#clock).toISOString();
    this.#clock += 1000;
    this.lines.push(JSON.stringify({ timestamp, type, payload }));
    return this;
  }

  /** Any text as a line of its own (damage). */
  raw(text: string): this {
    this.lines.push(text);
    return this;
  }

  /** The `session_meta` line. */
  meta(options: CodexMetaOptions = {}): this {
    return this.#line("session_meta", {
      id: options.id ?? CODEX_SESSION_ID,
      timestamp: new Date(this.#clock).toISOString(),
      cwd: options.cwd ?? "/work/project",
      originator: options.originator ?? "codex_cli_rs",
      cli_version: options.cliVersion ?? "0.135.0",
      source: "cli",
      model_provider: options.modelProvider ?? "openai",
      base_instructions: { text: "You are Codex." },
      ...(options.branch === undefined ? {} : {
        git: { commit_hash: "0".repeat(40), branch: options.branch, repository_url: "git@x:y.git" },
      }),
    });
  }

  /** A `turn_context` line; without `turnId` it is the old per-request shape. */
  turnContext(
    options: { turnId?: string; model?: string; approval?: string; cwd?: string } = {},
  ): this {
    return this.#line("turn_context", {
      ...(options.turnId === undefined ? {} : { turn_id: options.turnId }),
      cwd: options.cwd ?? "/work/project",
      approval_policy: options.approval ?? "on-request",
      sandbox_policy: { type: "workspace-write", network_access: false },
      model: options.model ?? "gpt-5.3-codex",
      effort: "medium",
      summary: "auto",
    });
  }

  /** A `task_started` event (no turn id in old versions). */
  taskStarted(turnId?: string): this {
    return this.event("task_started", {
      ...(turnId === undefined ? {} : { turn_id: turnId }),
      model_context_window: 258400,
    });
  }

  /** A `task_complete` event. */
  taskComplete(turnId?: string, last = "Done."): this {
    return this.event("task_complete", {
      ...(turnId === undefined ? {} : { turn_id: turnId }),
      last_agent_message: last,
    });
  }

  /** An `event_msg` line. */
  event(type: string, fields: Record<string, unknown> = {}): this {
    return this.#line("event_msg", { type, ...fields });
  }

  /** A `response_item` line. */
  item(payload: Record<string, unknown>): this {
    return this.#line("response_item", payload);
  }

  /** A message item; `role` may be `developer`. */
  message(role: string, text: string, images = 0): this {
    const kind = role === "assistant" ? "output_text" : "input_text";
    const content: unknown[] = [{ type: kind, text }];
    for (let i = 0; i < images; i++) content.push({ type: "input_image", image_url: "data:," });
    return this.item({ type: "message", role, content });
  }

  /** The user's prompt: the model-visible message and its `user_message` display copy. */
  prompt(text: string): this {
    return this.message("user", text).event("user_message", { message: text, images: [] });
  }

  /** The model's answer: the message and its `agent_message` display copy. */
  answer(text: string): this {
    return this.event("agent_message", { message: text }).message("assistant", text);
  }

  /** Encrypted reasoning and its display copy. */
  reasoning(summary = "Thinking"): this {
    this.event("agent_reasoning", { text: summary });
    return this.item({
      type: "reasoning",
      summary: [{ type: "summary_text", text: summary }],
      content: null,
      encrypted_content: "gAAAAB" + "x".repeat(64),
    });
  }

  /** A `function_call` (arguments as given: a JSON string, or anything). */
  call(callId: string, name = "exec_command", args = '{"cmd":"ls"}'): this {
    return this.item({ type: "function_call", name, arguments: args, call_id: callId });
  }

  /** A `function_call_output`. */
  output(callId: string, output: unknown): this {
    return this.item({ type: "function_call_output", call_id: callId, output });
  }

  /** A `custom_tool_call` such as `apply_patch`, its input a raw string. */
  customCall(callId: string, input: string, name = "apply_patch"): this {
    return this.item({
      type: "custom_tool_call",
      status: "completed",
      call_id: callId,
      name,
      input,
    });
  }

  /** A `custom_tool_call_output`. */
  customOutput(callId: string, output: string): this {
    return this.item({ type: "custom_tool_call_output", call_id: callId, output });
  }

  /** A `web_search_call`: no id, no output. */
  webSearch(query = "deno streams"): this {
    return this.item({
      type: "web_search_call",
      status: "completed",
      action: { type: "search", query },
    });
  }

  /** A `token_count` event for one model request; totals accumulate. */
  tokens(input: number, output: number, cached = 0): this {
    const last: CodexTokens = {
      input_tokens: input,
      cached_input_tokens: cached,
      output_tokens: output,
      reasoning_output_tokens: Math.floor(output / 2),
      total_tokens: input + output,
    };
    for (const key of Object.keys(last) as (keyof CodexTokens)[]) this.#total[key] += last[key];
    return this.event("token_count", {
      info: {
        total_token_usage: { ...this.#total },
        last_token_usage: last,
        model_context_window: 258400,
      },
      rate_limits: { primary: { used_percent: 5, window_minutes: 300 } },
    });
  }

  /** A `compacted` line; `replacement` undefined writes the older shape without one. */
  compacted(message: string, replacement?: Record<string, unknown>[]): this {
    this.#line("compacted", {
      message,
      ...(replacement === undefined ? {} : { replacement_history: replacement }),
    });
    return this.event("context_compacted");
  }

  /** The rollout's text, one line each, with a final newline. */
  text(): string {
    return this.lines.join("\n") + "\n";
  }
}

/** A Codex message item for a replacement history. */
export const codexMessage = (role: string, text: string): Record<string, unknown> => ({
  type: "message",
  role,
  content: [{ type: role === "assistant" ? "output_text" : "input_text", text }],
});
