/**
 * Reads a Claude Code transcript in two passes: an index of every line (ids, kinds, byte
 * ranges), the active branch found on it, then the branch's lines as turnlog records.
 *
 * @module
 */
import { basename } from "../../_path.ts";
import { type ForeignEntry, type ForeignFacts, noTokens, type TokenTotals } from "../_types.ts";
import type { UsageEvent } from "../_usage.ts";
import { type Branch, findBranch } from "./_branch.ts";
import { mapClaudePermission } from "./_facts.ts";
import { type ClaudeIndex, indexTranscript, type Node } from "./_index.ts";
import { isMessageKind } from "./_kinds.ts";
import { branchFields, ClaudeRead } from "./_reader.ts";
import { type Line, LineRanges, Pauses, ShortReadError } from "../../io/mod.ts";
import { type Json, parseJsonLine } from "../_line.ts";
import { findSubagents } from "./_subagents.ts";
import { analyzeIndexed, claudeFindings, LineChecks } from "./_check.ts";
import type { ReadSessionOptions } from "../_adapter.ts";

/** Options of {@linkcode readClaudeTranscript}. */
export interface ClaudeReadOptions extends ReadSessionOptions {
  /**
   * Files up to this size are parsed once (default 32 MiB): the first pass keeps what the second
   * needs. Larger files (and all when 0) have the branch's lines read and parsed again.
   */
  parseOnceBytes?: number;
}

/**
 * Files up to this size are parsed once: the first pass keeps the parsed lines the second
 * needs (those with no label) instead of the second reading and parsing them again. Larger
 * files keep their memory small (a node per line) and read the branch's lines again.
 */
const PARSE_ONCE_BYTES = 32 << 20;

const PLAIN_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;

/** The id the session goes by: its file name's, else the last session id its lines carry. */
export function sessionIdOf(path: string, index: ClaudeIndex): string {
  const stem = basename(path).replace(/\.jsonl$/, "");
  if (PLAIN_ID.test(stem)) return stem;
  const ids = index.sessionIds.values;
  return ids[ids.length - 1] ?? "unknown";
}

function tokensOf(index: ClaudeIndex): TokenTotals | null {
  if (index.usage.size === 0) return null;
  const tokens = noTokens();
  for (const usage of index.usage.allTokens()) {
    tokens.input += usage.input + usage.cacheRead + usage.cacheCreation;
    tokens.output += usage.output;
    tokens.cacheRead += usage.cacheRead;
    tokens.cacheCreation += usage.cacheCreation;
  }
  tokens.total = tokens.input + tokens.output;
  return tokens;
}

/** What Claude Code's own cost figure is called in reports. */
const CLAUDE_COST_SOURCE = "Claude Code's cost-state";

/** Each response's usage, once per message id and request id (`<synthetic>`: no model). */
function usageOf(index: ClaudeIndex): UsageEvent[] {
  return index.usage.events().toArray();
}

/** The title: a custom title, else the latest `summary` line naming a line of this file. */
function titleOf(index: ClaudeIndex): string | null {
  if (index.customTitle !== undefined) return index.customTitle;
  for (let i = index.summaries.length - 1; i >= 0; i--) {
    const { summary, leafUuid } = index.summaries[i]!;
    if (leafUuid !== undefined && index.byUuid.has(leafUuid)) return summary;
  }
  return null;
}

/**
 * The facts of a transcript read into `parts`; its usage as events made on asking
 * (`usageColumns`) when `compactUsage`, else as objects.
 */
export function claudeFacts(
  path: string,
  sizeBytes: number,
  parts: {
    index: ClaudeIndex;
    branch: Branch;
    read: ClaudeRead;
    sessionId: string;
    /** The title, when found before (else from the index's uuid map). */
    title?: string | null;
  },
  compactUsage = false,
): Omit<ForeignFacts, "subagents"> {
  const { index, branch, read, sessionId } = parts;
  const { nodes } = index;
  // One loop for what the facts count over every node (three walks and an array of the branch
  // before).
  let messages = false;
  let superseded = 0;
  let compactions = 0;
  for (let at = 0; at < nodes.length; at++) {
    const node = nodes.at(at);
    const kind = node.kind;
    messages ||= isMessageKind(kind);
    if (node.superseded) superseded++;
    if (kind === "boundary" && branch.active.has(at)) compactions++;
  }
  const state = nodes.length === 0 ? "empty" : messages ? "records" : "metadata-only";
  const leaf = branch.leaf >= 0 ? nodes.at(branch.leaf) : undefined;
  return {
    format: "claude-code",
    path,
    sizeBytes,
    lines: nodes.length,
    state,
    sessionId: state === "empty" ? null : sessionId,
    sessionIds: index.sessionIds.values,
    title: parts.title === undefined ? titleOf(index) : parts.title,
    firstPrompt: read.firstPrompt,
    models: index.models.values,
    cwd: index.cwds.values[0] ?? null,
    cwds: index.cwds.entries.map(({ value, line }) => ({ cwd: value, line })),
    gitBranch: index.gitBranches.values[0] ?? null,
    created: index.times.first,
    updated: index.times.last,
    version: index.version ?? null,
    approval: {
      mapped: mapClaudePermission(index.permissionMode),
      source: index.permissionMode ?? null,
    },
    tokens: tokensOf(index),
    ...(compactUsage ? { usageColumns: index.usage.events() } : { usage: usageOf(index) }),
    toolCost: index.cost && {
      totalUSD: index.cost.totalCostUSD,
      models: index.cost.models,
      where: `${path}:${index.cost.line}`,
      source: CLAUDE_COST_SOURCE,
    },
    turns: read.turns.turns,
    forks: branch.forks,
    ignored: read.ignored,
    problems: read.problems,
    formatFacts: {
      leafLine: leaf?.line ?? null,
      cycleLine: branch.cycleLine,
      danglingParentLine: branch.danglingParentLine,
      supersededLines: superseded,
      sideLines: branch.sideLines,
      turnEnds: index.hasTurnDuration ? "turn_duration" : "final_answer",
      agentId: index.agentId ?? null,
      parentSessionId: index.agentId === undefined ? null : index.sessionIds.values[0] ?? null,
      compactions,
      boundaryJoins: branch.joins,
      modelSwaps: index.modelSwaps,
      cost: index.cost,
    },
  };
}

/**
 * Reads a Claude Code transcript into entries, a batch at a time; the generator's return value
 * is the file's facts. Memory holds one small node per line (ids and offsets), never the texts
 * (but for files of up to {@linkcode ClaudeReadOptions.parseOnceBytes}).
 */
export async function* readClaudeTranscript(
  path: string,
  sizeBytes: number,
  options: ClaudeReadOptions = {},
): AsyncGenerator<ForeignEntry[], ForeignFacts> {
  // The check on the way: with no bad line, its view is the file's lines (its findings go out with the facts).
  const checks = new LineChecks();
  const once = sizeBytes <= (options.parseOnceBytes ?? PARSE_ONCE_BYTES);
  const values: Json[] | undefined = once ? [] : undefined;
  const check = options.check !== false;
  const index = await indexTranscript(path, sizeBytes, {
    observe: options.onLine,
    parsed: (value, _line, k, node) => {
      if (check && isMessageKind(node.kind)) checks.add(value, k);
      if (values !== undefined && node.label === undefined && node.kind !== "meta") {
        values[k] = branchFields(value);
      }
    },
  });
  const branch = findBranch(index);
  // The title is all that is asked of the uuid map from here on: found now, the map is let go
  // before the second pass.
  const title = titleOf(index);
  index.byUuid.release();
  const sessionId = sessionIdOf(path, index);
  // The check needs the index and the branch alone: done now, its columns are let go before the
  // second pass (they were held through it to the facts, a 1 GB transcript's 21 MB).
  const checked = check && index.nodes.every((node) => node.kind !== "problem")
    ? { checked: claudeFindings(path, analyzeIndexed(checks, index, branch)) }
    : {};
  checks.release();
  // The walk's segments (an array of the branch's nodes, 4.6 MB of heap at 1 GB) are the
  // check's and repair's alone: let go before the second pass too.
  branch.segments = [];
  const read = new ClaudeRead(path, index, branch, sessionId);
  yield* readBranch(read, values);
  const facts = claudeFacts(
    path,
    sizeBytes,
    { index, branch, read, sessionId, title },
    options.compactUsage,
  );
  // The read is done: its columns' memory is given back now, before what the caller does next
  // (the inspector's cost and report) makes its peak, where dropped it waited for a full
  // collection (51 MB at 1 GB). The facts keep the usage's numbers alone.
  read.release();
  index.nodes.release();
  index.usage.releaseKeys();
  const subagents = options.subagents === false
    ? []
    : await findSubagents(path, sessionId, index.agentIds);
  return { ...facts, subagents, ...checked };
}

/** What the second pass does with a node: nothing, its node alone, or its line read again. */
export function needOf(read: ClaudeRead, at: number): "skip" | "node" | "line" {
  const node = read.index.nodes.at(at);
  if (node.kind === "problem") return "line";
  if (node.kind === "meta") return "node";
  const { active, kept } = read.branch;
  if (kept.has(at)) return "line";
  if (!active.has(at)) return "skip";
  return node.label === undefined ? "line" : "node";
}

/**
 * Bytes of lines whose entries are handed over in one batch: one step of the generator for
 * many entries, and never many held. Entries held longer (a whole MiB of lines' at a time, as
 * before) outlived the young generation and filled the old one with tool outputs already
 * dropped downstream: a 100 MB file's peak RSS was 44 MB higher.
 */
const BATCH_BYTES = 64 << 10;

/** The line at `node`'s range, or undefined when the file shrank under the reader. */
export function lineAt(ranges: LineRanges, node: Node): Line | undefined {
  try {
    return ranges.line(node);
  } catch (error) {
    if (error instanceof ShortReadError) return undefined;
    throw error;
  }
}

/**
 * Runs the second pass: every node of the first, in read order (`ClaudeRead.order`), the
 * lines it needs read again by their byte ranges (or kept by the first pass; the others are not
 * decoded), their entries handed over a batch at a time.
 */
async function* readBranch(read: ClaudeRead, values?: Json[]): AsyncGenerator<ForeignEntry[]> {
  const { nodes } = read.index;
  if (nodes.length > 0) read.meta(nodes.at(0));
  using ranges = LineRanges.open(read.path);
  const pause = new Pauses(ranges.file);
  let batched = 0;
  for (const at of read.order()) {
    const node = nodes.at(at);
    const need = needOf(read, at);
    if (need === "node") {
      if (node.kind === "meta") read.metaLine(node);
      else read.labeledLine(at);
    } else if (need === "line" && values?.[at] !== undefined) {
      read.branchLine(at, values[at]!);
    } else if (need === "line") {
      const line = lineAt(ranges, node);
      // The file shrank under the reader: what is left of it is all there is to read.
      if (line === undefined) break;
      const parsed = parseJsonLine(read.path, line);
      if (node.kind === "problem") {
        if ("problem" in parsed) read.problemLine(parsed.problem);
      } else if ("value" in parsed) {
        read.branchLine(at, parsed.value);
      }
    }
    batched += node.end - node.start;
    if (batched >= BATCH_BYTES) {
      await pause.after(batched);
      batched = 0;
      // The array is handed over (`out` is emptied, not replaced: the turns write to it).
      if (read.out.length > 0) yield read.out.splice(0);
    }
  }
  read.end();
  if (read.out.length > 0) yield read.out.splice(0);
}
