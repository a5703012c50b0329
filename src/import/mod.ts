/**
 * Another tool's conversation continued in turnlog: a Codex rollout or a Claude Code
 * transcript found by path or id, and written as a new turnlog session holding its active
 * branch's history, normalized, that `resume` continues. The source file is never written.
 *
 * @example
 * ```ts ignore
 * const imported = await importSession("rollout-2026-02-23T12-40-23-019c8a4c.jsonl");
 * console.log(imported.sessionId, imported.calls);
 * ```
 *
 * @module
 */
export * from "./_import.ts";
