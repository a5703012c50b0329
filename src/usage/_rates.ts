/**
 * Flat per-token prices and the price of tokens at them, apart from the price table (whose
 * module is large): what the catalog keeps of a model's prices prices a response without it.
 *
 * @module
 */
import type { UsageTokens } from "../formats/mod.ts";

/** A model's price per token of each kind, on one day. */
export interface Rates {
  /** US dollars per input token (not cached). */
  input: number;
  /** Per output token. */
  output: number;
  /** Per token read from a cache. */
  cacheRead: number;
  /** Per token written to a cache. */
  cacheWrite: number;
}

/** The price of tokens at flat per-token prices (the table's own sum, in its order). */
export const priceAt = (tokens: UsageTokens, rates: Rates): number =>
  tokens.input * rates.input + tokens.output * rates.output +
  tokens.cacheRead * rates.cacheRead + tokens.cacheCreation * rates.cacheWrite;
