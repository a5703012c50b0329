/**
 * The inspector on another tool's file (a Codex rollout, a Claude Code transcript) read by its
 * adapter (src/formats), its entries fed to the same segmenter as turnlog's own lines, and the
 * report completed with what the adapter knows (title, models, branch, tokens, forks,
 * subagents, how the file was read).
 *
 * @module
 */
import { withCost } from "./_cost.ts";
import { basename } from "../_path.ts";
import {
  adapterFor,
  type FieldSighting,
  type ForeignEntry,
  type ForeignFacts,
  type ForeignFork,
  type ForeignFormat,
  type FormatAdapter,
  type LineObserver,
  readForeignSession,
  type SessionValidation,
  type SubagentLink,
  type TokenTotals,
  validateSessionFile,
  type ValidationFinding,
} from "../formats/mod.ts";
import type { Usage } from "../record/mod.ts";
import { plural } from "../text/mod.ts";
import { type SegmentedSession, type SegmenterOptions, TurnSegmenter } from "./_segmenter.ts";
import type {
  InspectFork,
  InspectProblem,
  InspectProblemKind,
  InspectSubagent,
  SessionFacts,
  Turn,
} from "./_types.ts";
import { isHealthy, withVerdict } from "./_verdict.ts";

/** The number of the turn a line is in: the last turn starting at or before it. */
function turnAt(turns: readonly Turn[], line: number | null): number | null {
  if (line === null) return null;
  let found: number | null = null;
  for (const turn of turns) {
    if (turn.startLine > line) break;
    found = turn.index;
  }
  return found;
}

const FORK_WORDS: Record<ForeignFork["kind"], string> = {
  rewind: "a rewind (another prompt)",
  retry: "a retry (another answer)",
  local_command: "a local command",
  sidechain: "a sidechain",
  separate_root: "a separate conversation",
  other: "a branch",
};

function forkOf(fork: ForeignFork, turns: readonly Turn[]): InspectFork {
  const range = fork.firstLine === fork.lastLine
    ? `line ${fork.firstLine}`
    : `lines ${fork.firstLine}-${fork.lastLine}`;
  return {
    id: fork.uuid ?? `line-${fork.firstLine}`,
    kind: fork.kind,
    line: fork.firstLine,
    lastLine: fork.lastLine,
    fromLine: fork.fromLine,
    turn: turnAt(turns, fork.fromLine),
    lines: fork.lines,
    messages: fork.messages,
    title: `${FORK_WORDS[fork.kind]}: ${fork.messages} ${
      fork.messages === 1 ? "message" : "messages"
    } on ${range}`,
  };
}

/** The subagent's task: the first prompt of its transcript's head, or null. */
async function subagentTitle(adapter: FormatAdapter, link: SubagentLink): Promise<string | null> {
  try {
    const listed = await adapter.preview({
      format: adapter.name,
      id: link.agentId ?? basename(link.path),
      path: link.path,
      created: null,
      modified: null,
      sizeBytes: 0,
      project: null,
    });
    return listed.preview;
  } catch {
    return null;
  }
}

async function subagentOf(
  adapter: FormatAdapter,
  link: SubagentLink,
  turns: readonly Turn[],
  titled: boolean,
): Promise<InspectSubagent> {
  return {
    id: link.agentId ?? basename(link.path).replace(/\.jsonl$/, ""),
    path: link.path,
    style: link.style,
    line: link.line,
    turn: turnAt(turns, link.line),
    title: titled ? await subagentTitle(adapter, link) : null,
  };
}

/** How the file was read, for a person: the adapter's notes, then what every format may have. */
function notesOf(adapter: FormatAdapter, facts: ForeignFacts): string[] {
  const notes = adapter.notes(facts);
  if (facts.sessionIds.length > 1) {
    notes.push(`its lines carry ${facts.sessionIds.length} session ids (resumed or forked)`);
  }
  return notes;
}

/** Notes shown at most for the validator's findings; the rest are counted. */
const CHECK_NOTES = 5;

/** The validator's findings split: those the report shows already, and those it lacks. */
function sortFindings(segmented: SegmentedSession, validation: SessionValidation) {
  const orphanCalls = new Set(segmented.orphanCalls.map((call) => call.callId));
  const orphanOutputs = new Set(segmented.orphanOutputs.map((output) => output.callId));
  const shown: ValidationFinding[] = [];
  const missing: ValidationFinding[] = [];
  for (const finding of validation.findings) {
    const known = finding.kind === "bad_line" || // a problem of the report already
      (finding.kind === "unanswered_call" && orphanCalls.has(finding.callId ?? "")) ||
      (finding.kind === "unexpected_result" && orphanOutputs.has(finding.callId ?? ""));
    (known ? shown : missing).push(finding);
  }
  return { shown, missing };
}

/** What the tool's check says of what the report shows already (orphans), as notes. */
function checkNotes(
  adapter: FormatAdapter,
  path: string,
  found: readonly ValidationFinding[],
): string[] {
  const tool = adapter.shortTool;
  const notes = found.filter((finding) => finding.kind !== "bad_line").slice(0, CHECK_NOTES)
    .map((finding) => `${tool}'s check, line ${finding.line}: ${what(path, finding)}`);
  if (found.length > CHECK_NOTES) {
    notes.push(
      `${plural(found.length - CHECK_NOTES, "more such line")} (inspect --repair lists them)`,
    );
  }
  return notes;
}

/** A finding's message without its `path:line: ` prefix. */
function what(path: string, finding: ValidationFinding): string {
  return finding.message.slice(`${path}:${finding.line}: `.length);
}

/**
 * What the tool's check finds that the report does not show yet (a parent chain that does not
 * reach its root, a call answered too late): problems of the file, in the tool's words, so
 * the verdict and the problems every view lists say the same.
 */
function checkProblems(
  adapter: FormatAdapter,
  path: string,
  missing: readonly ValidationFinding[],
  turns: readonly Turn[],
): InspectProblem[] {
  return missing.map((finding) => ({
    line: finding.line,
    kind: finding.kind as InspectProblemKind,
    message: `${path}:${finding.line}: ${adapter.shortTool}'s check: ${what(path, finding)}`,
    turn: turnAt(turns, finding.line),
    start: null,
    end: null,
  }));
}

/** The session's token counts as the turnlog totals' usage, so both say one total. */
function usageOf(tokens: TokenTotals | null): Usage {
  return tokens === null
    ? { inputTokens: 0, outputTokens: 0, totalTokens: 0 }
    : { inputTokens: tokens.input, outputTokens: tokens.output, totalTokens: tokens.total };
}

function sessionOf(
  adapter: FormatAdapter,
  segmented: SegmentedSession,
  facts: ForeignFacts,
): SessionFacts {
  const session = segmented.session;
  return {
    ...session,
    id: facts.sessionId ?? session.id ?? adapter.idFromName(facts.path),
    format: facts.format,
    state: facts.state,
    lines: facts.lines,
    title: facts.title,
    firstPrompt: facts.firstPrompt ?? session.firstPrompt,
    models: facts.models.length > 0 ? facts.models : session.models,
    cwd: facts.cwd ?? session.cwd,
    gitBranch: facts.gitBranch,
    // The file's own times, null when it names none (its synthesized records carry a
    // placeholder time that is no date of the session).
    created: facts.created,
    updated: facts.updated,
    toolVersion: facts.version,
    approvalSource: facts.approval.source,
    tokens: facts.tokens,
    notes: notesOf(adapter, facts),
  };
}

/**
 * What another tool's reader found of a file beside its report: what the doctor keeps of it
 * (`src/doctor/_kept.ts`), given by the same read (`InspectOptions.onRead`).
 */
export interface ReaderFindings {
  /** The writing tool's version (null: the file names none). */
  version: string | null;
  /** What the format's check found. */
  findings: ValidationFinding[];
  /** Lines of each kind the reader set aside, by kind. */
  ignored: Record<string, number>;
  /** Fields of known records turnlog has never seen, by `<where>.<key>`. */
  unknownFields: Record<string, FieldSighting>;
}

/**
 * Reads another tool's session file with its adapter and segments its entries as the
 * inspector segments a turnlog file: records and problems with their lines, the things
 * turnlog's model cannot hold counted in their turns. The format's validator runs too: what it
 * finds is noted, and a file it does not pass is not healthy.
 */
export async function inspectForeignFile(
  path: string,
  format: ForeignFormat,
  options: SegmenterOptions & {
    onLine?: LineObserver | undefined;
    priced?: boolean | undefined;
    lookups?: boolean | undefined;
    onRead?: ((found: ReaderFindings) => void) | undefined;
  } = {},
): Promise<SegmentedSession> {
  const session = readForeignSession(path, format, { onLine: options.onLine, compactUsage: true });
  const segmenter = new TurnSegmenter(path, options);
  for await (const batch of session.batches()) segmentEntries(segmenter, batch);
  const facts = session.facts;
  // The segmenter is this read's alone: its turns take their cost, unless a caller was given
  // them as they ended (`onBlock`).
  return await completeForeign(adapterFor(format), segmenter, facts, {
    priced: options.priced !== false,
    owned: options.onBlock === undefined,
    lookups: options.lookups !== false,
    onRead: options.onRead,
  });
}

/** Options of {@linkcode completeForeign}. */
export interface CompleteOptions {
  /** False: no cost worked out. Default true. */
  priced?: boolean | undefined;
  /** True: the segmenter's turns are the caller's alone, their cost set on them. Default false. */
  owned?: boolean | undefined;
  /** False: no subagent's transcript read for its title (each is null). Default true. */
  lookups?: boolean | undefined;
  /** Told what the reader found beside the report (its version, check, drift). */
  onRead?: ((found: ReaderFindings) => void) | undefined;
}

/** Feeds another tool's entries to a segmenter, in order. */
export function segmentEntries(segmenter: TurnSegmenter, entries: readonly ForeignEntry[]): void {
  for (const entry of entries) {
    // The entry is its own record entry and byte range: no object made per entry.
    if (entry.ignored === undefined) segmenter.push(entry, entry);
    else segmenter.ignore(entry.line, entry.ignored, entry.thought);
  }
}

/**
 * The report of another tool's file from a segmenter fed all its entries and the facts its
 * adapter read: what the adapter knows and its check added (the segmenter is finished); its
 * cost worked out unless `priced` is false, set on the segmenter's own turns when `owned` (no
 * one else holds them), else on copies; each subagent's title read from its transcript unless
 * `lookups` is false.
 */
export async function completeForeign(
  adapter: FormatAdapter,
  segmenter: TurnSegmenter,
  facts: ForeignFacts,
  options: CompleteOptions = {},
): Promise<SegmentedSession> {
  const { priced = true, owned = false, lookups = true } = options;
  const { path, format } = facts;
  const segmented = segmenter.finish({ sizeBytes: facts.sizeBytes, state: facts.state });
  const subagents: InspectSubagent[] = [];
  for (const link of facts.subagents) {
    subagents.push(await subagentOf(adapter, link, segmented.turns, lookups));
  }
  // The read made the check on the way unless a bad line kept it from it.
  const validation = facts.checked === undefined
    ? await validateSessionFile(path, format)
    : { format, path, valid: facts.checked.length === 0, findings: facts.checked };
  options.onRead?.({
    version: facts.version,
    findings: validation.findings,
    ignored: facts.ignored,
    unknownFields: facts.unknownFields ?? {},
  });
  const { shown, missing } = sortFindings(segmented, validation);
  const problems = [
    ...segmented.problems,
    ...checkProblems(adapter, path, missing, segmented.turns),
  ].sort((a, b) => a.line - b.line);
  const about = sessionOf(adapter, segmented, facts);
  const { verdict: _, ...unjudged } = segmented;
  const forks = facts.forks.map((fork) => forkOf(fork, segmented.turns));
  const unpriced = { session: about, turns: segmented.turns };
  const costed = priced
    ? await withCost(unpriced, facts.usageColumns ?? facts.usage, {
      provider: adapter.priceProvider,
      toolCost: facts.toolCost,
      // A sidechain's responses are work its turn asked for; other forks' are not the turn's.
      aside: forks.filter((fork) => fork.kind !== "sidechain"),
      inPlace: owned,
    })
    : unpriced;
  return withVerdict({
    ...unjudged,
    healthy: isHealthy({ problems, orphanCalls: segmented.orphanCalls }),
    turns: costed.turns,
    session: { ...costed.session, notes: [...about.notes, ...checkNotes(adapter, path, shown)] },
    totals: { ...segmented.totals, usage: usageOf(facts.tokens) },
    forks,
    subagents,
    problems,
  });
}
