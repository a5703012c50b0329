/**
 * What a session file says about the tokens its model responses used, as its tool counts them:
 * one event per model response, with its time and model, and the tool's own cost when the
 * file keeps one. Each format's `usage` reads a file into this (its `_usage.ts`), streaming
 * and looking only at the lines that can carry usage.
 *
 * @module
 */

/**
 * The tokens of one model response. The four kinds are apart (`input` holds no cached
 * token), as ccusage reports them; `reasoningOutput` is the part of `output` spent reasoning.
 */
export interface UsageTokens {
  /** Prompt tokens read fresh (not from a cache, not written to one). */
  input: number;
  /** Tokens the model wrote, reasoning included. */
  output: number;
  /** Prompt tokens served from a cache. */
  cacheRead: number;
  /** Prompt tokens written to a cache (Claude). */
  cacheCreation: number;
  /** The part of `output` spent reasoning (Codex, Gemini's thoughts). */
  reasoningOutput: number;
}

/** One model response's usage. */
export interface UsageEvent extends UsageTokens {
  /** When the response was written (ISO 8601). */
  time: string;
  /** The model that answered; null when the file does not say. */
  model: string | null;
  /**
   * The key the tool counts a response once under across files (Claude Code: `message.id`
   * and `requestId`); absent when each event counts.
   */
  key?: string;
  /** The message id alone, for a subagent replaying its parent's message (Claude Code). */
  messageId?: string;
  /** Written by a side chain (Claude Code's `isSidechain`). */
  sidechain?: boolean;
  /**
   * The file's line of the response (its first), where the reader knows it: a turn's cost is
   * then the responses on its own lines, not those of a branch a rewind left aside.
   */
  line?: number;
}

/** The cost a tool wrote itself for a session (Claude Code's `cost-state`). */
export interface ToolCost {
  /** The whole session's cost in US dollars, or null when not written. */
  totalUSD: number | null;
  /** Cost per model in US dollars. */
  models: Record<string, number>;
  /** Where it was read: `<file>:<line>`. */
  where: string;
  /** What the figure is, in words (`Claude Code's cost-state`). */
  source: string;
}

/** A file's usage: its events in file order, and what the file tells about them. */
export interface FileUsage {
  /** The events, in the order of the file. */
  events: UsageEvent[];
  /** The session id the file carries, or null. */
  sessionId: string | null;
  /** The first working directory, or null. */
  cwd: string | null;
  /** The price table's provider of the models (`anthropic`, `openai`, `google`), or null. */
  provider: string | null;
  /** The tool's own cost, when the file keeps one. */
  toolCost: ToolCost | null;
  /** Lines that could carry usage but were not JSON. */
  badLines: number;
}

/** A file's usage before anything was read. */
export function noUsage(provider: string | null): FileUsage {
  return { events: [], sessionId: null, cwd: null, provider, toolCost: null, badLines: 0 };
}

/** A non-negative integer field of an object, else 0. */
export function tokenField(value: unknown, key: string): number {
  if (typeof value !== "object" || value === null) return 0;
  const n = (value as Record<string, unknown>)[key];
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0;
}
