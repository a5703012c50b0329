/**
 * The repair plan of a Claude Code transcript: bad lines to the sidecar (the records they hold
 * written back), a `tool_result` line for each `tool_use` of the active branch that has none
 * (in the shape Claude Code writes for an interrupted tool, chained in where the result
 * belongs, the next line of the branch re-parented onto it), and each `tool_result` no call
 * asked for taken off the branch (its line to the sidecar, its children re-parented onto its
 * parent). Every line that changes keeps its original in the sidecar.
 *
 * @module
 */
import { sha256Hex } from "../../io/mod.ts";
import { type Json, str } from "../_line.ts";
import { type ForeignRepair, INTERRUPTED_RESULT } from "../_repair_types.ts";
import {
  analyzeClaude,
  type ClaudeAnalysis,
  claudeFindings,
  relinked,
  type Unanswered,
} from "./_check.ts";
import { Changes, lay, reader } from "./_repair_lines.ts";

/** The fields a synthesized result copies from the line of its `tool_use`, in Claude's order. */
const COPIED = [
  "isSidechain",
  "userType",
  "cwd",
  "sessionId",
  "version",
  "gitBranch",
  "agentId",
  "slug",
] as const;

/** Lines a result may come after on the chain, between the call and it. */
const BETWEEN = new Set(["progress", "system", "attachment"]);

/** A uuid that names the result repair writes for a call: the same every time, so a plan is exact. */
function resultUuid(sessionId: string, callId: string): string {
  const hex = sha256Hex(`turnlog-repair\u0000${sessionId}\u0000${callId}`);
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${
    hex.slice(17, 20)
  }-${hex.slice(20, 32)}`;
}

/** The chain's next line of each line of the walk back (root first). */
function chainNext(analysis: ClaudeAnalysis): Map<number, number> {
  const next = new Map<number, number>();
  for (const segment of analysis.branch.segments) {
    for (let i = 0; i + 1 < segment.length; i++) next.set(segment[i]!, segment[i + 1]!);
  }
  return next;
}

/** Takes results no call asked for off the branch: whole lines, or blocks out of a line. */
function planUnexpected(analysis: ClaudeAnalysis, changes: Changes): void {
  /** Per line: whether every result taken out of it repeats one its message keeps. */
  const repeats = new Map<number, boolean>();
  for (const { message, bad } of analysis.unexpected) {
    const kept = new Set(message.results.filter((r) => !bad.includes(r)).map((r) => r.id));
    for (const result of bad) {
      const set = changes.dropped.get(result.k) ?? new Set<number>();
      set.add(result.block);
      changes.dropped.set(result.k, set);
      repeats.set(result.k, (repeats.get(result.k) ?? true) && kept.has(result.id));
    }
  }
  for (const [k, blocks] of changes.dropped) {
    const info = analysis.infos[k]!;
    if (blocks.size < info.blocks) continue;
    changes.dropped.delete(k);
    const ids = info.results.map((r) => r.id).join(", ");
    const why = repeats.get(k)
      ? { kind: "duplicate_output" as const, why: `a second tool_result for ${ids}` }
      : {
        kind: "orphan_output" as const,
        why: `tool_result for ${ids} that no tool_use right before it asked for`,
      };
    // Copies a resume replayed go too, or the next read would count one of them instead.
    const { uuid, parentUuid } = analysis.index.nodes.at(k);
    analysis.index.nodes.forEach((node, at) => {
      if (at === k || (node.uuid === uuid && node.parentUuid === parentUuid)) {
        if (analysis.infos[at]!.results.length === info.results.length) {
          changes.removed.set(at, why);
        }
      }
    });
  }
}

/**
 * Where the results of a message's unanswered calls go on the chain: after its last line, or
 * after the results of its other calls that follow it (hook and attachment lines passed).
 */
function anchorOf(
  analysis: ClaudeAnalysis,
  next: Map<number, number>,
  item: Unanswered,
  changes: Changes,
): number {
  const { index, infos } = analysis;
  const asked = new Set(item.message.uses.map((use) => use.id));
  const chain = new Set(analysis.branch.segments.flat());
  const onChain = item.message.ks.filter((k) => chain.has(k));
  let anchor = onChain.length > 0 ? onChain[onChain.length - 1]! : item.message.ks.at(-1)!;
  for (let at = next.get(anchor); at !== undefined; at = next.get(at)) {
    const info = infos[at]!;
    if (BETWEEN.has(index.nodes.at(at).kind)) continue;
    const answers = info.type === "user" && info.results.length > 0 &&
      info.results.length === info.blocks && info.results.every((r) => asked.has(r.id));
    if (!answers) break;
    if (!changes.removed.has(at)) anchor = at;
  }
  return anchor;
}

/** Plans the results of one message's unanswered calls, and the re-parenting after them. */
async function planUnanswered(
  analysis: ClaudeAnalysis,
  item: Unanswered,
  parts: { next: Map<number, number>; changes: Changes; read: (k: number) => Promise<Json> },
): Promise<void> {
  const { index, infos } = analysis;
  const { next, changes, read } = parts;
  const anchor = anchorOf(analysis, next, item, changes);
  const anchorValue = await read(anchor);
  const answering =
    item.next?.results.filter((r) => item.message.uses.some((use) => use.id === r.id)) ?? [];
  const after = Math.max(anchor, ...item.message.ks, ...answering.map((r) => r.k));
  let parent = str(anchorValue, "uuid") ?? null;
  for (const use of item.missing) {
    const source = await read(use.k);
    const uuid = resultUuid(str(source, "sessionId") ?? "", use.id);
    const line: Json = { parentUuid: parent };
    for (const field of COPIED) if (field in source) line[field] = source[field];
    Object.assign(line, {
      type: "user",
      message: {
        role: "user",
        content: [{
          type: "tool_result",
          content: INTERRUPTED_RESULT,
          is_error: true,
          tool_use_id: use.id,
        }],
      },
      uuid,
      timestamp: str(anchorValue, "timestamp") ?? str(source, "timestamp"),
      toolUseResult: `Error: ${INTERRUPTED_RESULT}`,
    });
    changes.inserted.push({
      k: after,
      callId: use.id,
      toolName: use.name,
      callK: use.k,
      value: line,
    });
    parent = uuid;
  }
  const successor = next.get(anchor);
  if (successor === undefined) return;
  const { uuid, parentUuid } = index.nodes.at(successor);
  if (parentUuid === index.nodes.at(anchor).uuid) {
    // Every copy a resume replayed: the reader (and Claude Code) may count a later one.
    index.nodes.forEach((node, k) => {
      if (node.uuid === uuid && node.parentUuid === parentUuid) changes.parents.set(k, parent);
    });
  } else {
    changes.leftAsIs.push(
      `line ${infos[successor]!.line} follows line ${infos[anchor]!.line} on the branch ` +
        "through a compaction's link, not its parentUuid: left as is",
    );
  }
}

/** The parent the line right after a bad line names, when no line of the file has it. */
function nextLineParent(
  analysis: ClaudeAnalysis,
  line: number,
  staying: Set<string>,
): string | undefined {
  const next = analysis.infos.findIndex((info) => info.line > line);
  const parent = next < 0 ? undefined : analysis.index.nodes.at(next).parentUuid;
  return parent !== undefined && !staying.has(parent) ? parent : undefined;
}

/** The uuids of the lines that stay in the file. */
function staying(analysis: ClaudeAnalysis, changes: Changes): Set<string> {
  const uuids = new Set<string>();
  analysis.index.nodes.forEach((node, k) => {
    if (node.uuid !== undefined && !changes.removed.has(k)) uuids.add(node.uuid);
  });
  return uuids;
}

/**
 * Re-links the lines whose parent (or compaction's logical parent) leaves the file onto the
 * parent of the line that left (`gone`: a uuid that leaves, and what its parent is then).
 */
function relinkChildren(
  analysis: ClaudeAnalysis,
  changes: Changes,
  gone: Map<string, () => string | null>,
): void {
  if (gone.size === 0) return;
  const resolve = (uuid: string | null): string | null => {
    for (let step = 0; step <= gone.size && uuid !== null; step++) {
      const parent = gone.get(uuid);
      if (parent === undefined) return uuid;
      uuid = parent();
    }
    return uuid;
  };
  analysis.index.nodes.forEach((node, k) => {
    if (changes.removed.has(k)) return;
    const parent = changes.parents.has(k) ? changes.parents.get(k) : node.parentUuid;
    if (parent !== undefined && parent !== null && gone.has(parent)) {
      changes.parents.set(k, resolve(parent));
    }
    const logical = node.boundary?.logicalParentUuid;
    if (logical !== undefined && gone.has(logical)) {
      changes.logicalParents.set(k, resolve(logical));
    }
  });
}

/**
 * Re-links the children of bad lines whose parent can still be read in them (and, when their
 * end is lost with their uuid, the next line, when it names a parent no line has).
 */
function relinkLost(analysis: ClaudeAnalysis, changes: Changes): void {
  const uuids = staying(analysis, changes);
  const gone = new Map<string, () => string | null>();
  for (const bad of analysis.bad) {
    const links = bad.links;
    if (!links) continue;
    const uuid = links.uuid ?? nextLineParent(analysis, bad.line, uuids);
    if (uuid !== undefined && !uuids.has(uuid)) gone.set(uuid, () => links.parentUuid);
  }
  relinkChildren(analysis, changes, gone);
}

/** Re-links the children of results taken off the branch onto their (new) parent. */
function relinkRemoved(analysis: ClaudeAnalysis, changes: Changes): void {
  const { nodes } = analysis.index;
  const uuids = staying(analysis, changes);
  const gone = new Map<string, () => string | null>();
  for (const k of changes.removed.keys()) {
    const uuid = nodes.at(k).uuid;
    if (uuid === undefined || uuids.has(uuid)) continue;
    gone.set(
      uuid,
      () => changes.parents.has(k) ? changes.parents.get(k)! : nodes.at(k).parentUuid ?? null,
    );
  }
  relinkChildren(analysis, changes, gone);
}

/**
 * Works out the repair of the Claude Code transcript at `path` as it is now (up to
 * `sizeBytes`), with what its validator found before.
 */
export async function planClaudeRepair(path: string, sizeBytes: number): Promise<ForeignRepair> {
  const found = await analyzeClaude(path, sizeBytes);
  const findings = claudeFindings(path, found);
  const changes = new Changes();
  relinkLost(found, changes);
  // Lines re-linked over a lost line can bring calls back onto the branch: check it again.
  const mended = changes.parents.size > 0 ? relinked(found, changes.parents) : found;
  planUnexpected(mended, changes);
  relinkRemoved(mended, changes);
  // Results taken out can leave another line the newest one of the branch: check it again.
  const analysis = changes.removed.size > 0
    ? relinked(mended, changes.parents, changes.removed.keys())
    : mended;
  const read = reader(path, analysis);
  const next = chainNext(analysis);
  for (const item of analysis.unanswered) {
    await planUnanswered(analysis, item, { next, changes, read });
  }
  const root = found.branch.segments[0]?.[0];
  const joined = root !== undefined && changes.parents.has(root);
  for (const finding of findings) {
    if (finding.kind !== "broken_chain") continue;
    if (joined && finding.line === found.infos[root]!.line) continue;
    changes.leftAsIs.push(`${finding.message} (left as is: repair cannot know the lost link)`);
  }
  return {
    format: "claude-code",
    ...(await lay(path, analysis, changes, read)),
    leftAsIs: changes.leftAsIs,
    findings,
  };
}
