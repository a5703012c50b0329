/**
 * What the page says differently for turnlog's files and for other tools' files.
 *
 * @module
 */
import type { SessionAdapter } from "../formats/mod.ts";
import type { InspectReport } from "../inspect/mod.ts";

/** What fixes a call without an output: resume for turnlog's files, repair for the others. */
export function orphanFix(adapter: SessionAdapter): string {
  return adapter.own
    ? "resume would synthesize one (inspect --repair --write appends it now)"
    : "inspect --repair --write gives it a result saying it was interrupted";
}

/** The session's format: `turnlog`, `codex` or `claude-code`. */
export function sessionFormat(report: InspectReport): string {
  return report.session.format;
}

/** The session's format for people: `turnlog`, or the tool's file and its version. */
export function formatWords(report: InspectReport, adapter: SessionAdapter): string {
  const { format, toolVersion } = report.session;
  if (adapter.own) return format;
  return `${adapter.fileNoun}${toolVersion ? ` (version ${toolVersion})` : ""}`;
}
