/**
 * Codex CLI 0.169 rollouts in their real shapes, for the main suite: `history_mode:
 * "paginated"` with an `ordinal` on every record, `world_state`, `thread_settings_applied`,
 * `item_completed` display copies, `token_usage_record` after each model response (also when
 * the turn was killed before its `token_count` event), and the field
 * `internal_chat_message_metadata_passthrough`. Shapes copied from files the real Codex 0.169.0
 * wrote against the embedded model; deterministic (a fixed clock).
 *
 * @module
 */
import type { TokenTotals } from "../../src/formats/mod.ts";

/** The session id of the generated rollouts (a UUIDv7 of 2026-12-01). */
export const PAGINATED_ID = "01a23338-5d13-7120-b718-6f736a425521";
/** The base instructions the generated `session_meta` holds. */
export const PAGINATED_INSTRUCTIONS = "You are a coding agent running in the Codex CLI.";
/** The injected environment context, a user message in Codex's own shape. */
export const PAGINATED_CONTEXT =
  "<environment_context>\n  <cwd>/work/project</cwd>\n  <shell>bash</shell>\n</environment_context>";

/** Token usage in Codex 0.169's words. */
export interface PaginatedUsage {
  input_tokens: number;
  cached_input_tokens: number;
  cache_write_input_tokens: number;
  output_tokens: number;
  reasoning_output_tokens: number;
  total_tokens: number;
}

/** Codex's usage in turnlog's terms (`ForeignFacts.tokens`): what turnlog must count. */
export function turnlogTokens(usage: PaginatedUsage): TokenTotals {
  return {
    input: usage.input_tokens,
    output: usage.output_tokens,
    cacheRead: usage.cached_input_tokens,
    cacheCreation: 0,
    reasoningOutput: usage.reasoning_output_tokens,
    total: usage.total_tokens,
  };
}

const usage = (input: number, output: number): PaginatedUsage => ({
  input_tokens: input,
  cached_input_tokens: 0,
  cache_write_input_tokens: 0,
  output_tokens: output,
  reasoning_output_tokens: 0,
  total_tokens: input + output,
});

const add = (a: PaginatedUsage, b: PaginatedUsage): PaginatedUsage =>
  usage(a.input_tokens + b.input_tokens, a.output_tokens + b.output_tokens);

/** Where a fork's history is (its `session_meta`'s `history_base`). */
export interface PaginatedHistoryBase {
  thread_id: string;
  end_ordinal_exclusive: number;
  end_byte_offset: number;
}

/** Options of a {@linkcode PaginatedRolloutBuilder}. */
export interface PaginatedOptions {
  /** The thread id. @default {PAGINATED_ID} */
  id?: string;
  /** A fork's history (its ordinals continue from its end). */
  base?: PaginatedHistoryBase;
  /** The first record's time, in ms. */
  clock?: number;
}

/** Writes a 0.169 rollout record by record. */
export class PaginatedRolloutBuilder {
  readonly lines: string[] = [];
  readonly id: string;
  readonly #base: PaginatedHistoryBase | undefined;
  #ordinal: number;
  #clock: number;

  /** A rollout of `options.id`, a fork of `options.base` when it names one. */
  constructor(options: PaginatedOptions = {}) {
    this.id = options.id ?? PAGINATED_ID;
    this.#base = options.base;
    this.#ordinal = options.base?.end_ordinal_exclusive ?? 0;
    this.#clock = options.clock ?? Date.UTC(2026, 11, 1, 20, 7, 41);
  }
  #turn = "";
  #turnUsage = usage(0, 0);
  #threadUsage = usage(0, 0);
  /** The thread's usage as the last `token_count` event told it (it restarts on a resume). */
  #countedUsage = usage(0, 0);

  #record(type: string, payload: Record<string, unknown>): this {
    const timestamp = new Date(this.#clock).toISOString();
    this.#clock += 100;
    this.lines.push(JSON.stringify({ timestamp, ordinal: this.#ordinal++, type, payload }));
    return this;
  }

  #passthrough(): Record<string, unknown> {
    return { internal_chat_message_metadata_passthrough: { turn_id: this.#turn } };
  }

  /** `session_meta` with the base instructions, `history_mode: "paginated"`. */
  meta(): this {
    const base = this.#base;
    return this.#record("session_meta", {
      session_id: this.id,
      id: this.id,
      ...(base === undefined ? {} : {
        forked_from_id: base.thread_id,
        forked_from_ordinal_exclusive: base.end_ordinal_exclusive,
      }),
      timestamp: new Date(this.#clock).toISOString(),
      cwd: "/work/project",
      originator: "codex_exec",
      cli_version: "0.169.0",
      source: "exec",
      thread_source: "user",
      model_provider: "local",
      base_instructions: { text: PAGINATED_INSTRUCTIONS },
      history_mode: "paginated",
      ...(base === undefined ? {} : { history_base: base }),
      context_window: { window_id: "01a23338-5d16-7423-9867-b9ccf6f34b7b" },
    });
  }

  /**
   * A turn's opening records, as 0.169 writes them, up to the user's prompt and its copy; the
   * injected context only in a thread's first turn (`context`).
   */
  turn(turnId: string, prompt: string, context = true): this {
    this.#turn = turnId;
    this.#turnUsage = usage(0, 0);
    this.#record("event_msg", { type: "task_started", turn_id: turnId, root_turn_id: turnId });
    if (context) {
      this.message("developer", "<skills_instructions>\nSkills.\n</skills_instructions>");
      this.message("user", PAGINATED_CONTEXT);
      this.#record("world_state", { full: true, state: { agents_md: {} } });
    }
    this.#record("turn_context", {
      turn_id: turnId,
      cwd: "/work/project",
      approval_policy: "never",
      model: "scripted",
    });
    this.#record("event_msg", {
      type: "thread_settings_applied",
      thread_id: this.id,
      thread_settings: { model: "scripted", model_provider_id: "local" },
    });
    this.message("user", prompt, true);
    return this.#record("event_msg", {
      type: "item_completed",
      thread_id: this.id,
      turn_id: turnId,
      item: { type: "UserMessage", content: [{ type: "text", text: prompt }] },
    });
  }

  /** A message item (`output_text` for the assistant). */
  message(role: string, text: string, passthrough = false): this {
    const kind = role === "assistant" ? "output_text" : "input_text";
    return this.#record("response_item", {
      type: "message",
      role,
      content: [{ type: kind, text }],
      ...(passthrough ? this.#passthrough() : {}),
    });
  }

  /** An `exec_command` call. */
  call(callId: string, cmd: string): this {
    return this.#record("response_item", {
      type: "function_call",
      status: "completed",
      name: "exec_command",
      arguments: JSON.stringify({ cmd }),
      call_id: callId,
      ...this.#passthrough(),
    });
  }

  /** The output of a call, and the `item_completed` copy before it. */
  output(callId: string, text: string): this {
    this.#record("event_msg", {
      type: "item_completed",
      thread_id: this.id,
      turn_id: this.#turn,
      item: { type: "CommandExecution", id: callId, exit_code: 0 },
    });
    return this.#record("response_item", {
      type: "function_call_output",
      call_id: callId,
      output: `Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\n${text}\n`,
      ...this.#passthrough(),
    });
  }

  /** The `token_usage_record` of one model response (written at once, before the tools run). */
  usage(input: number, output: number): this {
    const last = usage(input, output);
    this.#turnUsage = add(this.#turnUsage, last);
    this.#threadUsage = add(this.#threadUsage, last);
    return this.#record("token_usage_record", {
      thread_id: this.id,
      turn_id: this.#turn,
      response_id: `resp_${this.#ordinal}`,
      usage: last,
      turn_token_usage: this.#turnUsage,
      thread_token_usage: this.#threadUsage,
    });
  }

  /**
   * The `token_count` event of the response the last `token_usage_record` told; its total is
   * what the events since the last resume add up to (Codex restarts it on a resume).
   */
  tokenCount(input: number, output: number): this {
    const last = usage(input, output);
    this.#countedUsage = add(this.#countedUsage, last);
    return this.#record("event_msg", {
      type: "token_count",
      info: {
        total_token_usage: this.#countedUsage,
        last_token_usage: last,
        model_context_window: 258400,
      },
    });
  }

  /** What Codex does on `exec resume`: the events' running total starts again. */
  resumed(): this {
    this.#countedUsage = usage(0, 0);
    return this;
  }

  /** The answer and the end of the turn. */
  answer(text: string): this {
    this.message("assistant", text);
    return this;
  }

  /** `task_complete`. */
  complete(last: string): this {
    return this.#record("event_msg", {
      type: "task_complete",
      turn_id: this.#turn,
      last_agent_message: last,
    });
  }

  /** Codex's own total of the thread: the last `token_usage_record`'s `thread_token_usage`. */
  get threadUsage(): PaginatedUsage {
    return this.#threadUsage;
  }

  /** The rollout's text, a line each, with a final newline. */
  text(): string {
    return this.lines.join("\n") + "\n";
  }

  /** The `history_base` of a fork of this rollout as it is now (its whole history). */
  forkPoint(): PaginatedHistoryBase {
    return {
      thread_id: this.id,
      end_ordinal_exclusive: this.#ordinal,
      end_byte_offset: new TextEncoder().encode(this.text()).length,
    };
  }
}

/** A turn that ran one command and answered: the clean shape. */
export function paginatedClean(): PaginatedRolloutBuilder {
  return new PaginatedRolloutBuilder().meta().turn("t1", "run `echo hi`")
    .call("c1", "echo hi").usage(9482, 16)
    .output("c1", "hi").tokenCount(9482, 16)
    .answer("It printed hi.").usage(9701, 85).tokenCount(9701, 85).complete("It printed hi.");
}

/**
 * A turn killed while its two parallel commands ran: the file ends after the calls and the
 * response's `token_usage_record`, with no `token_count` event.
 */
export function paginatedKilled(): PaginatedRolloutBuilder {
  return new PaginatedRolloutBuilder().meta().turn("t1", "run `sleep 30` and `sleep 31`")
    .call("c1", "sleep 30").call("c2", "sleep 31").usage(9507, 28);
}

/** {@linkcode paginatedKilled}, then resumed by Codex with a prompt it answered. */
export function paginatedKilledThenResumed(): PaginatedRolloutBuilder {
  return paginatedKilled().resumed().turn("t2", "say done", false).answer("Done.").usage(9629, 45)
    .tokenCount(9629, 45)
    .complete("Done.");
}
