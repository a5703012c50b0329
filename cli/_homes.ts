/**
 * The other tools' homes on the command line: one flag per adapter of the formats registry
 * (`--codex`, `--claude`), what they name, and their lines of `--help`.
 *
 * @module
 */
import type { ToolStart } from "../src/formats/mod.ts";
// The homes without their readers: a command names a home before it reads any file.
import { TOOL_STARTS } from "../src/formats/_tool_starts.ts";
import { wrapWords } from "../src/text/mod.ts";
import { UsageError } from "./_args.ts";

/** One boolean flag per adapter, for `parseFlags`: `--codex`, `--claude`. */
export const HOME_FLAGS: Readonly<Record<string, { type: "boolean" }>> = Object.fromEntries(
  TOOL_STARTS.map((home) => [home.flag, { type: "boolean" as const }]),
);

/** The adapter whose home flag is set, or undefined. */
export function homeAdapter(values: Readonly<Record<string, unknown>>): ToolStart | undefined {
  return TOOL_STARTS.find((home) => values[home.flag] === true);
}

/** The home flags that are set, in the registry's order (`["codex"]`). */
export function homeFlagsSet(values: Readonly<Record<string, unknown>>): string[] {
  return TOOL_STARTS.filter((home) => values[home.flag] === true).map((home) => home.flag);
}

/** Throws a usage error when more than one of the home flags and `others` is set. */
export function oneRootAtMost(
  values: Readonly<Record<string, unknown>>,
  others: readonly string[] = ["sessions-dir"],
): void {
  const flags = [...TOOL_STARTS.map((home) => home.flag), ...others];
  const set = flags.filter((flag) => values[flag] !== undefined);
  if (set.length > 1) throw new UsageError(`--${set[0]} and --${set[1]} do not go together`);
}

/**
 * The `--help` lines of the home flags, each `  --flag   <what>` with the flag padded to
 * `width` and `what` worded by the command, wrapped at `columns`.
 */
export function homeFlagsHelp(
  what: (adapter: ToolStart) => string,
  width = 21,
  columns = 92,
): string {
  const indent = " ".repeat(width + 2);
  return TOOL_STARTS.map((home) =>
    wrapWords(what(home), columns, `  ${`--${home.flag}`.padEnd(width)}`, indent)
  ).join("\n");
}
