/**
 * Export: a session of any format turnlog reads (turnlog's own, a Codex rollout, a Claude Code
 * transcript, a Gemini CLI session) continued in another tool. The source's conversation, as
 * its resume would send it, is written as a NEW session of the target tool, laid out in that
 * tool's home, which the tool then resumes (`codex resume <id>`, `claude --resume <id>`,
 * `gemini --resume <id>`) or turnlog does (`resume --session <id>`). The source is only read.
 *
 * @example
 * ```ts ignore
 * import { exportSession } from "@turnlog/turnlog/export";
 * const exported = await exportSession("transcript.jsonl", { to: "codex" });
 * console.log(exported.resume, exported.carried.calls, exported.degraded);
 * ```
 *
 * @module
 */
export * from "./_conversation.ts";
export * from "./_export.ts";
export * from "./_turnlog.ts";
