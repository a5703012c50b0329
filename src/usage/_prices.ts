/**
 * Tokens priced offline, from the price table pinned with turnlog (`@pydantic/genai-prices`,
 * its data bundled in the package: nothing is fetched), per model response, at the time it
 * was made (a table's prices can change on a date, and some depend on the request's size).
 *
 * @module
 */
import { calcPrice } from "@pydantic/genai-prices";
import type { UsageTokens } from "../formats/mod.ts";

export { PRICE_TABLE } from "./_table.ts";

/** Prices tokens; remembers the models the table has no price for. */
export class PriceBook {
  /** `provider model` pairs the table has no price for. */
  readonly #unpriced = new Set<string>();

  /**
   * The price in US dollars of one response's tokens, or null when the table has no price for
   * the model (never 0 for that: an unknown price is not a free one).
   *
   * @example
   * ```ts
   * import assert from "node:assert/strict";
   * import { loadPriceBook } from "./mod.ts";
   * const book = await loadPriceBook();
   * const tokens = { input: 1000, output: 0, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0 };
   * assert.equal(book.price(tokens, "gpt-5.5", "openai", "2026-06-05T00:00:00Z"), 0.005);
   * assert.equal(book.price(tokens, "scripted", "embedded", "2026-06-05T00:00:00Z"), null);
   * ```
   */
  price(
    tokens: UsageTokens,
    model: string | null,
    provider: string | null,
    time: string,
  ): number | null {
    if (model === null) return null;
    const pair = `${provider ?? ""} ${model}`;
    if (this.#unpriced.has(pair)) return null;
    const at = new Date(time);
    const options = {
      ...(provider === null ? {} : { providerId: provider }),
      ...(Number.isNaN(at.getTime()) ? {} : { timestamp: at }),
    };
    const usage = {
      input_tokens: tokens.input + tokens.cacheRead + tokens.cacheCreation,
      cache_read_tokens: tokens.cacheRead,
      cache_write_tokens: tokens.cacheCreation,
      output_tokens: tokens.output,
    };
    let priced = null;
    try {
      priced = calcPrice(usage, model, options);
    } catch {
      // A provider the table does not know: asked again without it, below.
    }
    if (priced === null && provider !== null) {
      try {
        priced = calcPrice(usage, model, Number.isNaN(at.getTime()) ? {} : { timestamp: at });
      } catch {
        priced = null;
      }
    }
    if (priced === null) {
      this.#unpriced.add(pair);
      return null;
    }
    return priced.total_price;
  }
}
