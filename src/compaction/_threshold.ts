/**
 * When to compact: the model's context window, the threshold a run uses, and the decision
 * after a round (or at the start of a resumed turn).
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type { ResponseItem, Usage } from "../record/mod.ts";
import { planKept } from "./_transform.ts";

/**
 * Context windows (in tokens) of known model families, matched by the longest name prefix.
 * Only the threshold is derived from them; an exact figure is not needed.
 */
export const MODEL_CONTEXT_WINDOWS: Readonly<Record<string, number>> = {
  "gpt-5": 400_000,
  "gpt-4.1": 1_047_576,
  "gpt-4o": 128_000,
  "gpt-4-turbo": 128_000,
  "gpt-4": 8_192,
  "gpt-3.5-turbo": 16_385,
  "o1": 200_000,
  "o3": 200_000,
  "o4-mini": 200_000,
};

/**
 * The context window assumed for a model the table does not know (a local model, the
 * embedded one): small, because compacting too early loses detail while compacting too late
 * fails the request.
 */
export const DEFAULT_CONTEXT_WINDOW = 32_000;

/**
 * The share of the context window at which a history is compacted. The check runs after a
 * round, and the next round can add a large tool output before the next check: a quarter
 * of the window is that headroom.
 */
export const THRESHOLD_FRACTION = 0.75;

/** Fewer removed items than this is not worth a summary call (the summary adds one item). */
export const MIN_REMOVED_ITEMS = 2;

/** The compaction threshold a model gets by default: {@linkcode THRESHOLD_FRACTION} of its window. */
export function defaultCompactThreshold(model: string): number {
  return Math.floor((knownContextWindow(model) ?? DEFAULT_CONTEXT_WINDOW) * THRESHOLD_FRACTION);
}

/** The window of the table's longest prefix of `model` (a provider prefix `x/` ignored). */
function knownContextWindow(model: string): number | undefined {
  const name = model.toLowerCase().replace(/^[a-z0-9_-]+\//, "");
  let best: string | undefined;
  for (const prefix of Object.keys(MODEL_CONTEXT_WINDOWS)) {
    if (name.startsWith(prefix) && (best === undefined || prefix.length > best.length)) {
      best = prefix;
    }
  }
  return best === undefined ? undefined : MODEL_CONTEXT_WINDOWS[best];
}

/** A compaction threshold a user gave that is not a positive whole number of tokens. */
export class InvalidThresholdError extends TurnlogError {
  constructor(value: unknown, options?: ErrorOptions) {
    super(
      "usage",
      `Invalid compaction threshold ${
        JSON.stringify(value)
      }: expected a positive whole number of tokens`,
      options,
    );
    this.name = "InvalidThresholdError";
  }
}

/** The threshold a run uses and where it came from. */
export interface ResolvedThreshold {
  tokens: number;
  source: "override" | "model" | "default";
}

/**
 * The threshold a run uses: the override (`--compact-threshold`) when given, else the
 * model's default. A string override (a CLI flag's text) is parsed.
 *
 * @throws {InvalidThresholdError} for an override that is not a positive integer
 *
 * @example
 * ```ts
 * import { resolveCompactThreshold } from "./_compaction.ts";
 * console.assert(resolveCompactThreshold({ model: "gpt-4o" }).tokens === 96_000);
 * console.assert(resolveCompactThreshold({ model: "gpt-4o", override: "500" }).tokens === 500);
 * ```
 */
export function resolveCompactThreshold(
  options: { model: string; override?: number | string | undefined },
): ResolvedThreshold {
  const { model, override } = options;
  if (override !== undefined) {
    const tokens = typeof override === "string" && /^\s*\d+\s*$/.test(override)
      ? Number(override)
      : override;
    if (typeof tokens !== "number" || !Number.isSafeInteger(tokens) || tokens <= 0) {
      throw new InvalidThresholdError(override);
    }
    return { tokens, source: "override" };
  }
  const source = knownContextWindow(model) === undefined ? "default" : "model";
  return { tokens: defaultCompactThreshold(model), source };
}

/** Whether to compact now, and why. */
export type CompactionDecision =
  & {
    /** The tokens compared: the last round's total (its input plus its output). */
    tokens: number;
    threshold: number;
    /** One sentence for an event or a log line. */
    message: string;
  }
  & (
    | { compact: true; reason: "token_threshold" }
    | { compact: false; reason: "no_usage" | "below_threshold" | "too_little_history" }
  );

/** Options of {@linkcode shouldCompact}. */
export interface ShouldCompactOptions {
  /** The usage the model reported for the last round, or its total tokens. */
  usage: Usage | number | undefined;
  /** Compact at or above this many tokens. */
  threshold: number;
  /** The history the next request would send. */
  history: readonly ResponseItem[];
  /** The budget {@linkcode compactHistory} will use, to tell what it would remove. */
  userBudgetTokens?: number;
  /** Compact only when at least this many items would go; default {@linkcode MIN_REMOVED_ITEMS}. */
  minRemovedItems?: number;
}

/**
 * Decides whether a history should be compacted. Checked after every model round and at the
 * start of a resumed turn. The tokens compared are the last round's total: its input plus
 * its output is about what the next request sends. Below the threshold nothing happens; above
 * it, a history whose compaction would remove fewer than `minRemovedItems` items is left
 * alone too (a summary call would cost more than it saves).
 *
 * @example
 * ```ts
 * import { shouldCompact } from "./_compaction.ts";
 * const decision = shouldCompact({ usage: 100, threshold: 8000, history: [] });
 * console.assert(!decision.compact && decision.reason === "below_threshold");
 * ```
 */
export function shouldCompact(options: ShouldCompactOptions): CompactionDecision {
  const { usage, threshold, history } = options;
  const tokens = usage === undefined ? 0 : typeof usage === "number" ? usage : usage.totalTokens;
  if (usage === undefined) {
    return {
      compact: false,
      reason: "no_usage",
      tokens,
      threshold,
      message: "The model reported no token usage; nothing to compare with the threshold",
    };
  }
  if (tokens < threshold) {
    return {
      compact: false,
      reason: "below_threshold",
      tokens,
      threshold,
      message: `${tokens} tokens is below the compaction threshold of ${threshold}`,
    };
  }
  const removable = planKept(history, options.userBudgetTokens).removedItemCount;
  const minimum = options.minRemovedItems ?? MIN_REMOVED_ITEMS;
  if (removable < minimum) {
    return {
      compact: false,
      reason: "too_little_history",
      tokens,
      threshold,
      message: `${tokens} tokens reaches the threshold of ${threshold}, but compaction would ` +
        `remove only ${removable} of ${history.length} items (at least ${minimum} needed)`,
    };
  }
  return {
    compact: true,
    reason: "token_threshold",
    tokens,
    threshold,
    message: `${tokens} tokens reaches the compaction threshold of ${threshold}; ` +
      `${removable} of ${history.length} items can go`,
  };
}
