/**
 * Tokens priced offline, from the price table pinned with turnlog (`@pydantic/genai-prices`,
 * its data bundled in the package: nothing is fetched), per model response, at the time it
 * was made (a table's prices can change on a date, and some depend on the request's size).
 *
 * @module
 */
import { calcPrice } from "@pydantic/genai-prices";
import type { UsageTokens } from "../formats/mod.ts";
import { priceAt, type Rates } from "./_rates.ts";

export { PRICE_TABLE } from "./_table.ts";

/** Whether a model's prices are the same whatever a request's size (no tier). */
const flat = (prices: Record<string, unknown>) =>
  Object.values(prices).every((price) => price === undefined || typeof price === "number");

/** Prices tokens; remembers the models the table has no price for. */
export class PriceBook {
  /** `provider model` pairs the table has no price for. */
  readonly #unpriced = new Set<string>();
  /**
   * Per-token prices by provider, model and day, for a model whose prices have no tiers: the
   * table's own calculation costs about 0.1 ms a call, as long as reading the response.
   */
  readonly #rates = new Map<string, Rates | null>();

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
    const rates = this.rates(model, provider, time);
    if (rates === "unpriced") return null;
    if (rates !== "tiered") return priceAt(tokens, rates);
    return this.#calc(tokens, model, provider, time, `${provider ?? ""} ${model}`);
  }

  /**
   * A model's per-token prices on the day of `time`; `tiered` when they depend on a request's
   * size or time of day (`price` asks the table each time), `unpriced` when the table has none.
   */
  rates(model: string, provider: string | null, time: string): Rates | "tiered" | "unpriced" {
    // A session's responses are mostly of one model on one day: the last answer is given
    // again, without a key string made and looked up per response (a tiered model's is not
    // kept: the table may find it unpriced since).
    const last = this.#last;
    if (
      last !== undefined && last.model === model && last.provider === provider &&
      time.startsWith(last.day)
    ) return last.rates;
    const rates = this.#ratesByDay(model, provider, time);
    const day = time.slice(0, 10);
    this.#last = rates === "tiered" || day.length < 10
      ? undefined
      : { model, provider, day, rates };
    return rates;
  }

  /** The last answer of {@linkcode PriceBook.rates} but a tiered one, for a time on `day`. */
  #last:
    | { model: string; provider: string | null; day: string; rates: Rates | "unpriced" }
    | undefined;

  /** {@linkcode PriceBook.rates} by its key. */
  #ratesByDay(model: string, provider: string | null, time: string): Rates | "tiered" | "unpriced" {
    const pair = `${provider ?? ""} ${model}`;
    if (this.#unpriced.has(pair)) return "unpriced";
    const day = `${pair} ${time.slice(0, 10)}`;
    let rates = this.#rates.get(day);
    if (rates === undefined) {
      rates = this.#ratesOf(model, provider, time);
      this.#rates.set(day, rates);
    }
    if (rates !== null) return rates;
    return this.#unpriced.has(pair) ? "unpriced" : "tiered";
  }

  /** A flat-priced model's per-token prices from the table (null: tiered, or no price). */
  #ratesOf(model: string, provider: string | null, time: string): Rates | null {
    const probe = (kind: keyof Rates) =>
      this.#calc(
        {
          input: kind === "input" ? 1000 : 0,
          output: kind === "output" ? 1000 : 0,
          cacheRead: kind === "cacheRead" ? 1000 : 0,
          cacheCreation: kind === "cacheWrite" ? 1000 : 0,
          reasoningOutput: 0,
        },
        model,
        provider,
        time,
        `${provider ?? ""} ${model}`,
      );
    const input = probe("input");
    // Prices that change within a day (an off-peak discount) are asked for at each response's
    // time, as tiered ones are: one day's rates were the first response's for the whole day.
    const pair = `${provider ?? ""} ${model}`;
    if (input === null || !flat(this.#lastPrices ?? {}) || this.#byTimeOfDay.has(pair)) return null;
    const [output, cacheRead, cacheWrite] = [
      probe("output"),
      probe("cacheRead"),
      probe("cacheWrite"),
    ];
    if (output === null || cacheRead === null || cacheWrite === null) return null;
    return {
      input: input / 1000,
      output: output / 1000,
      cacheRead: cacheRead / 1000,
      cacheWrite: cacheWrite / 1000,
    };
  }

  /** `provider model` pairs whose prices change within a day. */
  readonly #byTimeOfDay = new Set<string>();

  /** The prices the table's last calculation used (a probe's: are they tiered?). */
  #lastPrices: Record<string, unknown> | null = null;

  /** The table's own calculation for one response. */
  #calc(
    tokens: UsageTokens,
    model: string,
    provider: string | null,
    time: string,
    pair: string,
  ): number | null {
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
    this.#lastPrices = priced === null ? null : priced.model_price as Record<string, unknown>;
    if (priced === null) {
      this.#unpriced.add(pair);
      return null;
    }
    const prices = priced.model.prices;
    if (
      Array.isArray(prices) && prices.some((price) => price.constraint?.type === "time_of_date")
    ) this.#byTimeOfDay.add(pair);
    return priced.total_price;
  }
}
