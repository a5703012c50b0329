/**
 * Reads a Gemini CLI session file into turnlog records: its lines replayed as Gemini's own
 * loader replays them (the last copy of a message wins, in the order of first appearance;
 * checkpoints and rewinds), then the history as records, each with the line of the copy it
 * came from. A legacy single-object `.json` file is read as one checkpoint. The history is
 * known only at the end of the file, so its messages are kept until then (as Gemini keeps
 * them).
 *
 * @module
 */
import { basename } from "node:path";
import { readLineChunks } from "../../io/mod.ts";
import {
  isoTime,
  type Json,
  lineProblem,
  parseJsonLine,
  problemEntry,
  spanOf,
  str,
  TimeSpan,
} from "../_line.ts";
import type { ForeignEntry, ForeignFacts, LineSpan } from "../_types.ts";
import { GeminiReplay } from "./_replay.ts";
import { GeminiTurns } from "./_turns.ts";
import type { GeminiFacts } from "./_facts.ts";
import { isLegacyFile, readLegacyObject } from "./_legacy.ts";
import { parentOf, projectRootOf, subagentsOf } from "./_subagents.ts";

/** The state of one read. */
interface Read {
  replay: GeminiReplay<LineSpan>;
  problems: { seq: number; entry: ForeignEntry }[];
  lines: number;
  checkpoints: number;
  first: LineSpan | undefined;
  times: TimeSpan;
}

function feed(read: Read, path: string, value: Json, span: LineSpan): void {
  const role = read.replay.feed(value, span);
  read.times.see(value.timestamp);
  if (role === "checkpoint") read.checkpoints++;
  if (role === "unknown") {
    const problem = lineProblem(path, span, "unknown_type", "not a Gemini CLI session record");
    read.problems.push({ seq: read.replay.next(), entry: problemEntry(problem) });
  }
}

async function readJsonl(read: Read, path: string, sizeBytes: number): Promise<void> {
  for await (const lines of readLineChunks(path)) {
    for (const line of lines) {
      if (line.text.length === 0 && line.terminated) continue;
      if (line.start >= sizeBytes) return;
      read.lines++;
      const span = spanOf(line);
      read.first ??= span;
      const parsed = parseJsonLine(path, line);
      if ("problem" in parsed) {
        read.problems.push({ seq: read.replay.next(), entry: problemEntry(parsed.problem) });
      } else feed(read, path, parsed.value, span);
    }
  }
}

/** A legacy file: one JSON object (its metadata and `messages`), read whole. */
async function readLegacy(read: Read, path: string, sizeBytes: number): Promise<void> {
  const legacy = await readLegacyObject(path, sizeBytes);
  const span: LineSpan = { line: 1, start: 0, end: sizeBytes };
  read.first = span;
  read.lines = legacy.text.split("\n").filter((line) => line.trim().length > 0).length;
  if ("value" in legacy) return feed(read, path, legacy.value, span);
  const problem = lineProblem(path, span, "malformed_json", legacy.error);
  read.problems.push({ seq: read.replay.next(), entry: problemEntry(problem) });
}

const DROPPED: Record<string, string> = {
  superseded: "superseded copy",
  checkpoint: "replaced by a checkpoint",
  rewound: "rewound",
};

/**
 * Reads a Gemini CLI session file into entries; the generator's return value is the file's
 * facts.
 */
export async function* readGeminiSession(
  path: string,
  sizeBytes: number,
  options: { subagents?: boolean } = {},
): AsyncGenerator<ForeignEntry, ForeignFacts> {
  const read: Read = {
    replay: new GeminiReplay(),
    problems: [],
    lines: 0,
    checkpoints: 0,
    first: undefined,
    times: new TimeSpan(),
  };
  if (isLegacyFile(path)) await readLegacy(read, path, sizeBytes);
  else await readJsonl(read, path, sizeBytes);
  const { replay } = read;
  const meta = replay.metadata;
  const messages = [...replay.messages.values()];
  for (const message of messages) read.times.see(message.value.timestamp);
  const sessionId = str(meta, "sessionId") ?? null;
  const cwd = await projectRootOf(path);
  const created = isoTime(meta.startTime) ?? read.times.first;
  const firstModel = messages.map((m) => str(m.value, "model")).find((m) => m !== undefined);
  const turns = new GeminiTurns({
    id: sessionId ?? basename(path).replace(/\.jsonl?$/, ""),
    createdAt: created ?? "1970-01-01T00:00:00.000Z",
    cwd: cwd ?? "",
    model: firstModel ?? "unknown",
    span: read.first ?? { line: 1, start: 0, end: 0 },
  });
  // Everything in the order it came: the history by first appearance, the rest by line.
  // (A message's dropped copies before the message itself: they came first.)
  const order = [
    ...replay.dropped.map((d) => ({
      seq: d.seq,
      go: () => turns.ignore(d.copy.place, DROPPED[d.why]!),
    })),
    ...messages.map((m) => ({ seq: m.seq, go: () => turns.message(m.value, m.last.place) })),
    ...read.problems.map((p) => ({ seq: p.seq, go: () => turns.problem(p.entry) })),
  ].sort((a, b) => a.seq - b.seq);
  if (read.lines > 0) { for (const step of order) step.go(); }
  if (read.lines > 0) turns.end();
  yield* turns.out;
  const subagents = options.subagents === false || sessionId === null
    ? []
    : await subagentsOf(path, sessionId);
  return {
    format: "gemini",
    path,
    sizeBytes,
    lines: read.lines,
    state: read.lines === 0
      ? "empty"
      : turns.out.some((entry) => entry.record?.type === "response_item")
      ? "records"
      : "metadata-only",
    sessionId,
    sessionIds: sessionId === null ? [] : [sessionId],
    title: str(meta, "summary") ?? null,
    firstPrompt: turns.firstPrompt,
    models: turns.models,
    cwd,
    cwds: cwd === null ? [] : [{ cwd, line: 1 }],
    gitBranch: null,
    created,
    updated: isoTime(meta.lastUpdated) ?? read.times.last,
    version: null,
    approval: { mapped: "ask-changes", source: null },
    tokens: turns.tokens,
    turns: turns.turns,
    forks: [],
    subagents,
    ignored: countIgnored(turns.out),
    problems: read.problems.length,
    formatFacts: geminiFacts(path, read),
  };
}

function geminiFacts(path: string, read: Read): GeminiFacts {
  const dropped = (why: string) => read.replay.dropped.filter((d) => d.why === why).length;
  return {
    supersededCopies: dropped("superseded"),
    checkpoints: read.checkpoints,
    replacedByCheckpoint: dropped("checkpoint"),
    rewound: dropped("rewound"),
    parentSessionId: parentOf(path),
    legacy: isLegacyFile(path),
  };
}

function countIgnored(entries: ForeignEntry[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const entry of entries) {
    if (entry.ignored !== undefined) counts[entry.ignored] = (counts[entry.ignored] ?? 0) + 1;
  }
  return counts;
}
