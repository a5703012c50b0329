/**
 * Colour for the terminal: one painter, writing what `node:util`'s `styleText` writes (a
 * property test holds it to that) without importing `node:util`, which evaluates about 55 of
 * Deno's Node modules at every command's start (src/_path.ts). Whether a stream may be
 * coloured is `_terminal.ts`'s.
 *
 * @module
 */

/** The styles turnlog paints with. */
export type Style = "bold" | "dim" | "red" | "green" | "yellow" | "blue" | "magenta" | "cyan";

/** Paints text in a style, or leaves it plain when colour is off. */
export type Painter = (style: Style, text: string) => string;

/** Each style's SGR codes that open and close it (`util.inspect.colors`). */
const CODES: Readonly<Record<Style, readonly [number, number]>> = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
};

function paint(style: Style, text: string): string {
  const [on, off] = CODES[style];
  const open = `\x1b[${on}m`;
  const close = `\x1b[${off}m`;
  // A close inside the text (not at its end) opens the style again after it; 22 closes bold
  // and dim both, so it stays where it is and the style opens after it.
  const again = off === 22 ? close + open : open;
  let inner = "";
  let from = 0;
  for (let at = text.indexOf(close); at !== -1; at = text.indexOf(close, at + close.length)) {
    if (at + close.length === text.length) break;
    inner += text.slice(from, at) + again;
    from = at + close.length;
  }
  return open + inner + text.slice(from) + close;
}

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
  return enabled ? paint : (_style, text) => text;
}
