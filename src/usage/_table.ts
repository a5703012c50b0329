/**
 * The price table's name, apart from the table (whose module is loaded only when a price is
 * asked for).
 *
 * @module
 */

/** The price table and its version, as reports name it (the pin in deno.json). */
export const PRICE_TABLE = "@pydantic/genai-prices 0.1.8";
