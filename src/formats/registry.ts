/**
 * The registry: every other tool's format turnlog reads, one adapter a line. Detection asks
 * them in this order (after turnlog's own format, the default), and the commands offer one
 * home flag each (`--codex`, `--claude`). Adding a format is a folder beside these and one
 * line here (docs/layout.md, "Adding a format").
 *
 * @module
 */
import type { FormatAdapter } from "./_adapter.ts";
import { inWords } from "./homes.ts";
import {
  type ForeignFormat,
  ForeignSessionError,
  type SessionFormat,
  TURNLOG_FORMAT,
} from "./_types.ts";
// Each adapter from its own module: a format's face (mod.ts) holds its writer too, which a
// read does not load (the adapter loads it when it writes).
import { claudeCodeAdapter } from "./claude_code/_adapter.ts";
import { codexAdapter } from "./codex/_adapter.ts";
import { geminiAdapter } from "./gemini/_adapter.ts";
import { type OwnFormatAdapter, turnlogAdapter } from "./turnlog/mod.ts";

export { type OwnFormatAdapter, turnlogAdapter };
export { TURN_CONTEXT_MARK, type TurnlogHead, TurnlogHeadReader } from "./turnlog/mod.ts";

/**
 * Any format's adapter: turnlog's own (`own: true`) or another tool's; `adapter.own` tells
 * them apart, never a name.
 */
export type SessionAdapter = OwnFormatAdapter | FormatAdapter;

/** Every other tool's format, in the order detection asks them. */
export const ADAPTERS = [
  codexAdapter,
  claudeCodeAdapter,
  geminiAdapter,
] as const satisfies readonly FormatAdapter[];

/** Every format turnlog reads, in the order detection asks them: turnlog's own first. */
export const FORMATS = [turnlogAdapter, ...ADAPTERS] as const;

/** Every format turnlog reads, by name: `turnlog` and each adapter's (`codex`, `claude-code`). */
export type KnownFormat = typeof TURNLOG_FORMAT | (typeof ADAPTERS)[number]["name"];

/** Every format's name: turnlog's own first, then each adapter's. */
export const FORMAT_NAMES: readonly [KnownFormat, ...KnownFormat[]] = [
  turnlogAdapter.name,
  ...ADAPTERS.map((adapter) => adapter.name),
];

/**
 * The adapter of a format, by the name a report or a record carries: turnlog's own
 * (`own: true`) or another tool's.
 *
 * @throws {ForeignSessionError} for a name no adapter has
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adapterOf } from "./mod.ts";
 * assert.equal(adapterOf("codex").tool, "Codex CLI");
 * assert.equal(adapterOf("turnlog").own, true);
 * ```
 */
export function adapterOf(format: SessionFormat): SessionAdapter {
  return format === TURNLOG_FORMAT ? turnlogAdapter : adapterFor(format);
}

/**
 * The adapter of what a piece of data names by its format (`{ format }`: a report's
 * `session`, a repair plan, a search source): data is written as JSON and read back, so it
 * carries a name, not an adapter. The one way such a name becomes an adapter outside
 * the registry; a command that found or detected a session hands its adapter on instead.
 *
 * @throws {ForeignSessionError} for a name no adapter has
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { adapterOfData } from "./mod.ts";
 * assert.equal(adapterOfData({ format: "gemini" }).tool, "Gemini CLI");
 * assert.equal(adapterOfData({ format: "turnlog" }).own, true);
 * ```
 */
export function adapterOfData(data: { readonly format: SessionFormat }): SessionAdapter {
  return adapterOf(data.format);
}

/**
 * The adapter of another tool's format.
 *
 * @throws {ForeignSessionError} when no adapter has that name
 */
export function adapterFor(format: ForeignFormat): FormatAdapter {
  const adapter: FormatAdapter | undefined = ADAPTERS.find((adapter) => adapter.name === format);
  if (adapter === undefined) {
    throw new ForeignSessionError(
      `No adapter reads the format ${JSON.stringify(format)} (known: ${FORMAT_NAMES.join(", ")})`,
    );
  }
  return adapter;
}

/** The adapter whose home flag is `flag` (`codex` for `--codex`), or undefined. */
export function adapterByFlag(flag: string): FormatAdapter | undefined {
  return ADAPTERS.find((adapter) => adapter.flag === flag);
}

/** One session file of a format, for people: `turnlog session`, `Codex CLI rollout`. */
export function fileNounOf(format: SessionFormat): string {
  const adapter: SessionAdapter | undefined = FORMATS.find((adapter) => adapter.name === format);
  return adapter?.fileNoun ?? format;
}

/** The tools whose files turnlog reads, in a sentence: `turnlog, Codex or Claude Code`. */
export function toolsInWords(conjunction = "or"): string {
  return inWords(FORMATS.map((adapter) => adapter.shortTool), conjunction);
}

/** One file of each other tool, in a sentence: `a Codex CLI rollout or a Claude Code transcript`. */
export function fileNounsInWords(conjunction = "or"): string {
  return inWords(ADAPTERS.map((adapter) => `a ${adapter.fileNoun}`), conjunction);
}

/** Each other tool's sessions root, in a sentence: `a Codex sessions root or a Claude Code projects root`. */
export function rootsInWords(conjunction = "or"): string {
  const roots = ADAPTERS.map((adapter) => `a ${adapter.shortTool} ${adapter.home.inside} root`);
  return inWords(roots, conjunction);
}
