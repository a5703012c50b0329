/**
 * turnlog: an agent's JSONL session log made a conversation that can be continued, again and
 * again, across processes and machines, and inspected and repaired when a crash damaged it.
 *
 * - {@linkcode runTurn} runs one turn of an agent against a model (`connectModel`: OpenAI, an
 *   OpenAI-compatible server, or the embedded deterministic model), appending every record to
 *   the session's file;
 * - {@linkcode initializeSessionForRun} and {@linkcode resumeSession} rebuild the exact
 *   model-visible history from the file, repairing tool calls a crash left without an output;
 * - {@linkcode inspectSession} and {@linkcode repairSession} show a session turn by turn and
 *   repair a damaged file without losing a byte;
 * - {@linkcode readForeignSession} reads Codex CLI rollouts and Claude Code transcripts as
 *   turnlog records, and {@linkcode importSession} continues one as a new turnlog session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { connectModel, runTurn } from "./mod.ts";
 *
 * const sessionsDir = await Deno.makeTempDir();
 * await using connection = await connectModel({ model: "scripted" });
 * const first = await Array.fromAsync(
 *   runTurn({ message: "hello", connection, sessionsDir, workspace: sessionsDir }),
 * );
 * const started = first[0];
 * assert(started?.type === "run_started");
 * const second = await Array.fromAsync(runTurn({
 *   message: "what did I ask so far?",
 *   sessionId: started.sessionId,
 *   connection,
 *   sessionsDir,
 *   workspace: sessionsDir,
 * }));
 * const answer = second.at(-1);
 * assert(answer?.type === "run_succeeded" && answer.answer.includes("1. hello"));
 * await Deno.remove(sessionsDir, { recursive: true });
 * ```
 *
 * @module
 */
export * from "./errors/mod.ts";
export * from "./record/mod.ts";
export * from "./history/mod.ts";
export * from "./store/mod.ts";
export * from "./compaction/mod.ts";
export * from "./resume/mod.ts";
export * from "./inspect/mod.ts";
export * from "./repair/mod.ts";
export * from "./runtime/mod.ts";
export * from "./formats/mod.ts";
export * from "./import/mod.ts";
