/**
 * Colour for the terminal: one painter, from `node:util` `styleText` (whether a stream may be
 * coloured is `_terminal.ts`'s, which loads no `node:util`).
 *
 * @module
 */
import { styleText } from "node:util";

/** The styles turnlog paints with. */
export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan";

/** Paints text in a style, or leaves it plain when colour is off. */
export type Painter = (style: Style, text: string) => string;

/**
 * A painter that colours when `enabled` is true and leaves text plain otherwise.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { painter } from "./mod.ts";
 * assert.deepEqual(painter(false)("red", "x"), "x");
 * assert.deepEqual(painter(true)("red", "x"), "\x1b[31mx\x1b[39m");
 * ```
 */
export function painter(enabled: boolean): Painter {
  return enabled ? (style, text) => styleText(style, text, { validateStream: false }) : (
    _style,
    text,
  ) => text;
}
