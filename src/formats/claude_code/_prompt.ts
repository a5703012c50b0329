/**
 * The prompt a person wrote, from a Claude Code user line's text: what the header, the page's
 * title, the listing and search all show as the session's first prompt. A slash command is
 * its name and arguments; context Claude Code put before the words (`<ide_opened_file>`,
 * `<system-reminder>`) is left out; a line of injected context only, a local command's
 * output, a caveat or an interruption is no prompt.
 *
 * @module
 */

const COMMAND_NAME = /<command-name>([^<]*)<\/command-name>/;
const COMMAND_ARGS = /<command-args>([^<]*)<\/command-args>/;
/** A leading block of context Claude Code injects: `<tag ...>...</tag>`. */
const INJECTED_BLOCK = /^\s*<([a-z][a-z0-9_-]*)\b[^>]*>[\s\S]*?<\/\1>/;
const NOT_WORDS = /^\s*(<|Caveat: |\[Request interrupted)/;

/**
 * The prompt in a user line's text, or undefined when the line holds none.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { promptOf } from "./_prompt.ts";
 * assert.equal(promptOf("<command-name>/init</command-name><command-args></command-args>"), "/init");
 * assert.equal(promptOf("<ide_opened_file>a.py</ide_opened_file>Fix it"), "Fix it");
 * assert.equal(promptOf("<system-reminder>context</system-reminder>"), undefined);
 * ```
 */
export function promptOf(text: string): string | undefined {
  const name = COMMAND_NAME.exec(text)?.[1];
  if (name !== undefined) {
    const args = COMMAND_ARGS.exec(text)?.[1] ?? "";
    return `${name.trim()} ${args.trim()}`.trim() || undefined;
  }
  let rest = text;
  for (let block = INJECTED_BLOCK.exec(rest); block; block = INJECTED_BLOCK.exec(rest)) {
    rest = rest.slice(block[0].length);
  }
  if (rest.trim() === "" || NOT_WORDS.test(rest)) return undefined;
  return rest.trim();
}
