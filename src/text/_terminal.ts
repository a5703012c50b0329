/**
 * Whether a stream may be coloured, apart from the painter: a command that only asks this
 * (every command's output writer) loads no `node:util`, tens of milliseconds of its start.
 *
 * @module
 */

/**
 * Whether `stream` may be coloured: only a terminal, and never with `NO_COLOR` set. Decided
 * here rather than by `styleText`'s stream check, which also turns colour off wherever a `CI`
 * variable is set, even on a terminal (`Deno.noColor` needs no permission).
 */
export function colorEnabled(stream: "stdout" | "stderr" = "stdout"): boolean {
  return (stream === "stdout" ? Deno.stdout : Deno.stderr).isTerminal() && !Deno.noColor;
}
