/**
 * Each format's `usage` reader by its format's name, without the adapters: what a thread that
 * only reads usage loads (the worker of a cold `usage` count, `src/usage/_usage_worker.ts`), a
 * fraction of the registry's modules (about 10 MB less of a worker's memory). The same
 * functions as the adapters' `usage` (its example checks).
 *
 * @module
 */
import type { SessionFormat } from "./_types.ts";
import { TURNLOG_FORMAT } from "./_types.ts";
import type { FileUsage } from "./_usage.ts";
import { claudeCodeWords } from "./claude_code/_home.ts";
import { claudeUsage } from "./claude_code/_usage.ts";
import { codexWords } from "./codex/_home.ts";
import { codexUsage } from "./codex/_usage.ts";
import { geminiWords } from "./gemini/_home.ts";
import { geminiUsage } from "./gemini/_usage.ts";
import { turnlogUsage } from "./turnlog/_usage.ts";

/** Reads a session file's usage (a format adapter's `usage`). */
export type UsageReader = (path: string) => Promise<FileUsage>;

/**
 * Each format's `usage` reader, by the format's name.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { USAGE_READERS } from "./usage_readers.ts";
 * import { FORMATS } from "./mod.ts";
 * for (const format of FORMATS) assert.equal(USAGE_READERS.get(format.name), format.usage);
 * assert.equal(USAGE_READERS.size, FORMATS.length);
 * ```
 */
export const USAGE_READERS: ReadonlyMap<SessionFormat, UsageReader> = new Map<
  SessionFormat,
  UsageReader
>([
  [TURNLOG_FORMAT, turnlogUsage],
  [claudeCodeWords.name, claudeUsage],
  [codexWords.name, codexUsage],
  [geminiWords.name, geminiUsage],
]);
