/**
 * The prices a new process gives a session's responses without loading the price table: each
 * model's per-token prices on a day, as the table gave them to an earlier process, kept beside
 * the catalog (`catalog.sqlite-prices.json`) under the table's version. The table's module takes
 * 100-200 ms to load, as long as a whole process's start; a model or day not kept yet, or one
 * whose prices depend on a request's size or time of day (tiered), loads it as before.
 *
 * @module
 */
import type { UsageTokens } from "../formats/mod.ts";
import { late } from "../_late.ts";
import { dirname } from "../_path.ts";
import { resolveCatalogPath } from "../catalog/_location.ts";
import { CATALOG_ENV, readEnv } from "../catalog/_named.ts";
import { pricesKeptOnDisk } from "./_kept_where.ts";
import type { PriceBook } from "./_prices.ts";
import { priceAt, type Rates } from "./_rates.ts";
import { PRICE_TABLE } from "./_table.ts";

/**
 * A model's prices on a day as the table gives them (`PriceBook.rates`): per-token prices,
 * `tiered` when they depend on a request's size or time of day (the table is asked for each),
 * `unpriced` when the table has none.
 */
export type KeptRates = Rates | "tiered" | "unpriced";

/** The kept prices' file as written: the table's version, and the prices by their key. */
interface KeptFile {
  table: string;
  rates: Record<string, KeptRates>;
}

/** A time whose day the table prices by: written from `YYYY-MM-DD` on, and a date. */
const DAY = /^\d{4}-\d{2}-\d{2}/;

/**
 * Prices responses from kept prices, and from the table (`PriceBook`) once one is not kept:
 * each answer equals the table's (`PriceBook.price`), kept or not.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { KeptPrices } from "./_kept_prices.ts";
 * const rates = { input: 5e-6, output: 2.5e-5, cacheRead: 5e-7, cacheWrite: 6.25e-6 };
 * const kept = new KeptPrices(new Map([["anthropic claude-opus-4-5 2026-02-23", rates]]));
 * const tokens = { input: 1000, output: 0, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0 };
 * assert.equal(kept.price(tokens, "claude-opus-4-5", "anthropic", "2026-02-23T12:00:00Z"), 0.005);
 * // Another day is not kept: the table must be loaded first.
 * assert.equal(kept.price(tokens, "claude-opus-4-5", "anthropic", "2026-02-24T12:00:00Z"), undefined);
 * assert.equal(kept.tableLoaded, false);
 * ```
 */
export class KeptPrices {
  readonly #kept: Map<string, KeptRates>;
  readonly #path: string | undefined;
  #book: PriceBook | undefined;
  /** Whether a price was added since the file was read (`save` writes it then). */
  #added = false;
  /** The last answer, for a time on `day` (a session's responses are mostly one model's). */
  #last:
    | { model: string; provider: string | null; day: string; rates: KeptRates }
    | undefined;

  readonly #onKept: ((key: string, rates: KeptRates) => void) | undefined;

  /**
   * @param kept the prices by `provider model day`
   * @param path the file `save` writes them to; none: they are not written
   * @param onKept told each price kept from the table (the usage count keeps them in its
   * database)
   */
  constructor(
    kept: Map<string, KeptRates>,
    path?: string,
    onKept?: (key: string, rates: KeptRates) => void,
  ) {
    this.#kept = kept;
    this.#path = path;
    this.#onKept = onKept;
  }

  /** Whether the price table's module has been loaded (a price was not kept). */
  get tableLoaded(): boolean {
    return this.#book !== undefined;
  }

  /** Loads the price table, for the prices that are not kept. */
  async loadTable(): Promise<void> {
    if (this.#book !== undefined) return;
    const { PriceBook } = await late<typeof import("./_prices.ts")>(
      "./_prices.ts",
      import.meta.url,
    );
    this.#book = new PriceBook();
  }

  /**
   * The price in US dollars of one response's tokens as the table gives it (null: the table
   * has no price for the model), or undefined when it is not kept and the table is not loaded
   * (`loadTable`, then ask again).
   */
  price(
    tokens: UsageTokens,
    model: string | null,
    provider: string | null,
    time: string,
  ): number | null | undefined {
    if (model === null) return null;
    const rates = this.#rates(model, provider, time);
    if (rates === undefined || rates === "unpriced") return rates === undefined ? undefined : null;
    if (rates !== "tiered") return priceAt(tokens, rates);
    return this.#book?.price(tokens, model, provider, time);
  }

  /** A model's prices on the day of `time`, kept or from the table; undefined: neither. */
  #rates(model: string, provider: string | null, time: string): KeptRates | undefined {
    const last = this.#last;
    if (
      last !== undefined && last.model === model && last.provider === provider &&
      time.startsWith(last.day)
    ) return last.rates;
    const day = time.slice(0, 10);
    const key = `${provider ?? ""} ${model} ${day}`;
    let rates = this.#kept.get(key);
    if (rates === undefined) {
      if (this.#book === undefined) return undefined;
      rates = this.#book.rates(model, provider, time);
      // Not kept: a price asked at a time that is no date (the table prices it as of now).
      if (DAY.test(time) && !Number.isNaN(Date.parse(time))) {
        this.#kept.set(key, rates);
        this.#added = true;
        this.#onKept?.(key, rates);
      }
    }
    this.#last = DAY.test(time) && this.#kept.get(key) === rates
      ? { model, provider, day, rates }
      : undefined;
    return rates;
  }

  /**
   * Writes the prices added since they were read, whole (a temp file renamed over the file: a
   * reader sees the old file or the new one); a file that cannot be written is left as it is
   * (the prices are a cache: the next process asks the table again).
   */
  save(): void {
    if (!this.#added || this.#path === undefined) return;
    this.#added = false;
    const dir = dirname(this.#path);
    if (Deno.permissions.querySync({ name: "write", path: dir }).state !== "granted") return;
    const file: KeptFile = { table: PRICE_TABLE, rates: Object.fromEntries(this.#kept) };
    const temp = `${this.#path}.${Deno.pid}.tmp`;
    try {
      Deno.writeTextFileSync(temp, JSON.stringify(file));
      Deno.renameSync(temp, this.#path);
    } catch {
      try {
        Deno.removeSync(temp);
      } catch {
        // Never written.
      }
    }
  }
}

/**
 * The file the prices are kept in: beside the catalog, as SQLite's own files are; none for a
 * library caller that did not name the catalog (`src/usage/_kept_where.ts`).
 */
function keptPath(): string | undefined {
  if (!pricesKeptOnDisk() && readEnv(CATALOG_ENV) === undefined) return undefined;
  try {
    return `${resolveCatalogPath()}-prices.json`;
  } catch {
    return undefined;
  }
}

/**
 * The prices kept in `path` for this table's version (none when it is missing, unreadable or
 * another version's), written back there by `save`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readKeptPrices } from "./_kept_prices.ts";
 * const dir = Deno.makeTempDirSync();
 * const tokens = { input: 1000, output: 0, cacheRead: 0, cacheCreation: 0, reasoningOutput: 0 };
 * const first = readKeptPrices(`${dir}/prices.json`);
 * await first.loadTable();
 * assert.equal(first.price(tokens, "gpt-5.3-codex", "openai", "2026-02-23T12:00:00Z"), 0.00175);
 * first.save();
 * const next = readKeptPrices(`${dir}/prices.json`);
 * assert.equal(next.price(tokens, "gpt-5.3-codex", "openai", "2026-02-23T18:00:00Z"), 0.00175);
 * assert.equal(next.tableLoaded, false);
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function readKeptPrices(path: string | undefined): KeptPrices {
  if (path === undefined) return new KeptPrices(new Map());
  if (Deno.permissions.querySync({ name: "read", path }).state !== "granted") {
    return new KeptPrices(new Map(), path);
  }
  try {
    const file = JSON.parse(Deno.readTextFileSync(path)) as KeptFile;
    if (file.table === PRICE_TABLE && typeof file.rates === "object" && file.rates !== null) {
      return new KeptPrices(new Map(Object.entries(file.rates)), path);
    }
  } catch {
    // Missing, or not whole: written again from the table's answers.
  }
  return new KeptPrices(new Map(), path);
}

let shared: KeptPrices | undefined;

/**
 * This process's kept prices, read once from beside the catalog (`TURNLOG_CATALOG`'s
 * `catalog.sqlite-prices.json`, else the one in turnlog's data folder); in memory alone for a
 * library caller that did not name the catalog.
 */
export function keptPrices(): KeptPrices {
  shared ??= readKeptPrices(keptPath());
  return shared;
}
