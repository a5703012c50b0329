/**
 * The one verdict on a session file that every view states: the text view's header, `--json`'s
 * `healthy`, the exit code and the page's `data-healthy` all come from here, and so do the
 * token totals they show.
 *
 * @module
 */
import { plural } from "../text/mod.ts";
import type { InspectReport } from "./_types.ts";

/**
 * Whether a file is healthy: nothing in its problems and no call without an output. Every
 * report's `healthy` is this, so a view that lists the problems and orphan calls says why.
 */
export function isHealthy(
  findings: { problems: readonly unknown[]; orphanCalls: readonly unknown[] },
): boolean {
  return findings.problems.length === 0 && findings.orphanCalls.length === 0;
}

/** The verdict of a report as every view states it. */
export interface Verdict {
  /** The report's `healthy`. */
  healthy: boolean;
  /** How a view colours it: `ok` healthy, `bad` with findings, `warn` no conversation. */
  tone: "ok" | "bad" | "warn";
  /** The verdict in words: `healthy`, `2 problems, 1 orphan call`, `empty file: ...`. */
  words: string;
  /** The session's token total (0 when the file reports none): {@linkcode tokenTotal}. */
  tokens: number;
}

/** The session's token total, the one number every view shows; 0 when the file reports none. */
export function tokenTotal(report: Pick<InspectReport, "session">): number {
  return report.session.tokens?.total ?? 0;
}

/**
 * The verdict of `report`: healthy or what is wrong (its problems and orphan calls counted),
 * or that the file holds no conversation, with the token total.
 *
 * @example
 * ```ts ignore
 * const { healthy, words } = verdictOf(await inspectSession("s.jsonl"));
 * ```
 */
export function verdictOf(
  report: Pick<InspectReport, "healthy" | "problems" | "orphanCalls" | "session">,
): Verdict {
  const tokens = tokenTotal(report);
  const findings = [
    report.problems.length > 0 ? plural(report.problems.length, "problem") : "",
    report.orphanCalls.length > 0 ? plural(report.orphanCalls.length, "orphan call") : "",
  ].filter(Boolean);
  if (!report.healthy) {
    return { healthy: false, tone: "bad", words: findings.join(", ") || "not healthy", tokens };
  }
  const state = report.session.state;
  if (state === "empty") {
    return { healthy: true, tone: "warn", words: "empty file: no conversation", tokens };
  }
  if (state === "metadata-only") {
    const words = "no conversation: only the session's metadata lines";
    return { healthy: true, tone: "warn", words, tokens };
  }
  return { healthy: true, tone: "ok", words: "healthy", tokens };
}

/**
 * A report with its verdict in words beside `healthy` (`--json`'s `verdict`): the words the
 * text view's header and the page's badge say.
 */
export function withVerdict<
  R extends Omit<InspectReport, "verdict" | "continueCommand" | "continuePrefix">,
>(
  report: R,
): R & { verdict: string } {
  const { format, version, healthy, ...rest } = report;
  return { format, version, healthy, verdict: verdictOf(report).words, ...rest } as
    & R
    & { verdict: string };
}

/** The exit code of a command that inspected `report`: 0 healthy, 1 not. */
export function exitCodeOf(report: InspectReport): 0 | 1 {
  return report.healthy ? 0 : 1;
}

/**
 * Why a turn has no end, in the words of its file's tool (`tool`: the adapter's `shortTool`;
 * undefined for turnlog's own file, whose runs end with a `run_finished` record).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { unfinishedWords } from "./mod.ts";
 * assert.equal(
 *   unfinishedWords("Claude Code", true),
 *   "the turn did not finish: Claude Code wrote no end of it (stopped or killed, or still running)",
 * );
 * ```
 */
export function unfinishedWords(tool: string | undefined, last: boolean): string {
  const still = last ? ", or still running" : "";
  return tool === undefined
    ? `the run did not finish: no run_finished record (crashed or killed${still})`
    : `the turn did not finish: ${tool} wrote no end of it (stopped or killed${still})`;
}
