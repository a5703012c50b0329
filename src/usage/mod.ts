/**
 * Usage and cost across every home, as the tools count them: each model response read from
 * the session files (each format's `usage`), counted once (Claude Code's split lines, Codex's
 * repeated `token_count`s), priced offline (`@pydantic/genai-prices`, or the tool's own figure:
 * Claude Code's `cost-state`), and grouped by day, month, session, project or model in
 * ccusage's JSON shape.
 *
 * @module
 */
export { PRICE_TABLE } from "./_table.ts";
export type { PriceBook } from "./_prices.ts";
export * from "./_cost.ts";
export * from "./_rates.ts";
export * from "./_collect.ts";
export * from "./_catalog.ts";
export * from "./_warm.ts";
export * from "./_report.ts";
export * from "./_render.ts";
