/**
 * Another tool's session file (a Codex rollout, a Claude Code transcript) read back as resume
 * reads turnlog's own: the active branch's records replayed and normalized, so the history a
 * resume would send can be shown, and imported. It never writes.
 *
 * @module
 */
import { SessionReplay } from "../history/mod.ts";
import { type ForeignFormat, readForeignSession } from "../formats/mod.ts";
import { SessionFileError } from "../record/mod.ts";
import { normalizeLoaded, type ResumedSession } from "./_loaded.ts";

/** A foreign session read back: what resume would work with, and the adapter's facts. */
export interface ResumedForeignSession extends ResumedSession {
  /** The source session's id as its file gives it, or null. */
  sourceSessionId: string | null;
}

/**
 * Reads another tool's session file as resume reads a turnlog file: its records replayed (from
 * the last checkpoint on), then normalized. It writes nothing.
 *
 * @throws {SessionFileError} when the file holds no conversation (empty, metadata only)
 */
export async function resumeForeignFile(
  path: string,
  format: ForeignFormat,
): Promise<ResumedForeignSession> {
  const session = readForeignSession(path, format, { subagents: false, check: false });
  const replay = new SessionReplay();
  for await (const batch of session.batches()) for (const entry of batch) replay.push(entry);
  const { meta, lastTurn, problems, history: replayed, records: recordCount } = replay;
  const facts = session.facts;
  if (meta === undefined || facts.state !== "records") {
    throw new SessionFileError(
      `${path}: no conversation to resume (${
        facts.state === "records" ? "no record could be read" : `${facts.state} file`
      })`,
    );
  }
  const location = { id: meta.id, path, createdAt: meta.createdAt };
  const loaded = { location, meta, replayed, lastTurn, recordCount, problems };
  return {
    ...normalizeLoaded({ ...loaded, replayedFrom: undefined }),
    sourceSessionId: facts.sessionId,
  };
}
