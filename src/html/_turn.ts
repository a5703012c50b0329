/**
 * One turn of the session page: its boundary as a `<summary>`, then every line of it in file
 * order, each tool call with its output beside it. Every string from the session goes
 * through {@linkcode escapeText}.
 *
 * @module
 */
import { formatCost } from "../usage/mod.ts";
import {
  BlockOutputs,
  type Header,
  type InspectReport,
  type OrphanCall,
  type Turn,
  type TurnEntry,
  unfinishedWords,
} from "../inspect/mod.ts";
import type { SessionAdapter, ToolEdit } from "../formats/mod.ts";
import { clipText, escapeHtml, escapeText, firstLine, withoutLocation } from "./_escape.ts";
import { blankText, formatNumber, formatTime, plural, trimBlank } from "../text/mod.ts";
import { type DiffBudget, editsHtml } from "./_diff.ts";
import type { LinkedSession, LinkKind } from "./_links.ts";
import { markdownHtml } from "./_markdown.ts";

/** What the turn renderer needs to know besides the turn (resolved page options). */
export interface TurnSettings {
  textChars: number;
  collapseChars: number;
  collapseLines: number;
  sessionHref: ((id: string, kind?: LinkKind) => string) | undefined;
  /** Orphan calls kept in a checkpoint's replacement history, by the checkpoint's line. */
  checkpointOrphans: Map<number, OrphanCall[]>;
  /** Forks and subagents by the turn they happen in. */
  links: Map<number, LinkedSession[]>;
  /** What fixes a call without an output in this session's format, for the page's notes. */
  orphanFix: string;
  /** The adapter of the session's format (its tool's words, its edits). */
  adapter: SessionAdapter;
  /** The time the page's diffs have left. */
  diffBudget: DiffBudget;
  /** Each edit's diff once made, by its call's line and id: both views show it, made once. */
  diffs?: Map<string, string>;
}

type CallEntry = Extract<TurnEntry, { kind: "function_call" }>;
type OutputEntry = Extract<TurnEntry, { kind: "function_call_output" }>;

const lineLink = (line: number) => `<a class="ln" href="#line-${line}">line ${line}</a>`;
const where = (ref: { line: number; turn: number | null }) =>
  `<a href="#line-${ref.line}">line ${ref.line}${
    ref.turn === null ? "" : `, turn ${ref.turn}`
  }</a>`;

/**
 * A text of the session: shown whole when short, else collapsed in a `<details>` whose
 * summary is its first line and its size; clipped to `textChars` with a note of the rest.
 * Markdown (an assistant's) is rendered, raw HTML in it escaped; a message's blank lines
 * before its words are left off, and a text of whitespace only says so.
 */
export function textHtml(
  text: string,
  chars: number,
  settings: TurnSettings,
  options: { key: string; pre: boolean; collapse?: boolean; markdown?: boolean; trim?: boolean },
): string {
  const blank = options.trim ? blankText(text, chars) : undefined;
  if (blank !== undefined) return `<p class="muted blank">${blank}</p>`;
  const body = options.trim ? trimBlank(text, text.length >= chars) : text;
  const clip = clipText(body, chars - (text.length - body.length), settings.textChars);
  const shown = options.pre
    ? `<pre>${escapeText(clip.shown)}</pre>`
    : options.markdown
    ? `<div class="text md">${markdownHtml(clip.shown)}</div>`
    : `<div class="text">${escapeText(clip.shown)}</div>`;
  const note = clippedNote(clip);
  const long = clip.chars > settings.collapseChars || clip.lines > settings.collapseLines;
  if (!(options.collapse ?? long)) return shown + note;
  const size = `${plural(clip.lines, "line")}${clip.clipped ? "+" : ""}, ${
    plural(clip.chars, "char")
  }`;
  return `<details class="long" data-key="${
    escapeHtml(options.key)
  }"><summary><span class="preview">${
    escapeText(firstLine(clip.shown, 100))
  }</span> <span class="size">(${size})</span></summary>${shown}${note}</details>`;
}

function clippedNote(clip: { shown: string; chars: number; clipped: boolean }): string {
  return clip.clipped
    ? `<p class="clipped">Clipped: ${formatNumber(clip.shown.length)} of ${
      formatNumber(clip.chars)
    } characters shown.</p>`
    : "";
}

function head(role: string, line: number, extra = ""): string {
  return `<div class="head"><span class="role">${escapeHtml(role)}</span>${extra}${
    lineLink(line)
  }</div>`;
}

function outputHtml(entry: OutputEntry, settings: TurnSettings, paired: boolean): string {
  const attributes = [
    `class="output${entry.isError ? " error" : ""}${paired ? "" : " entry"}"`,
    `id="line-${entry.line}"`,
    `data-output-for="${escapeHtml(entry.callId)}"`,
  ];
  if (entry.synthesized) attributes.push("data-synthesized");
  if (entry.dropped) attributes.push(`data-dropped="${escapeHtml(entry.dropped)}"`);
  const role = entry.synthesized ? "synthesized output" : entry.isError ? "error output" : "output";
  const badges: string[] = [];
  if (entry.synthesized) {
    badges.push(`<span class="badge synth">written by resume, not by the tool</span>`);
  }
  if (!paired) {
    badges.push(
      `<span class="mono">${escapeText(entry.toolName)}</span> <code>${
        escapeText(entry.callId)
      }</code>`,
    );
    if (entry.call) badges.push(`<span>answers the call at ${where(entry.call)}</span>`);
  }
  const notes: string[] = [];
  if (entry.dropped === "orphan_output") {
    notes.push("⚠ Orphan output: no call before it; resume drops it from the history.");
  } else if (entry.dropped === "duplicate_output") {
    notes.push("⚠ A second output for this call: resume drops it from the history.");
  }
  return `<div ${attributes.join(" ")}>${head(role, entry.line, badges.join(" "))}${
    textHtml(entry.text, entry.chars, settings, { key: `line-${entry.line}`, pre: true })
  }${notes.map((n) => `<p class="note warn">${n}</p>`).join("")}</div>`;
}

/**
 * A call's arguments: the file changes it asks for as a diff, else its input as it is; `key`
 * names its folded texts (the record view's `line-<n>`, the reading view's own).
 */
export function argumentsHtml(
  entry: CallEntry,
  edits: ToolEdit[] | null,
  settings: TurnSettings,
  key = `line-${entry.line}`,
): string {
  if (!edits) {
    return fieldsHtml(entry, settings, key) ??
      textHtml(entry.text, entry.chars, settings, { key, pre: true });
  }
  const clipped = entry.text.length < entry.chars;
  const made = `${entry.line} ${entry.callId}`;
  let diff = settings.diffs?.get(made);
  if (diff === undefined) {
    diff = editsHtml(edits, settings);
    settings.diffs?.set(made, diff);
  }
  return diff + clippedNote({ shown: entry.text, chars: entry.chars, clipped });
}

/** Fields of an input shown one by one at most; an object of more is shown as it is. */
const MAX_FIELDS = 12;

/**
 * A call's input that is a whole JSON object of a few fields, field by field: a string as
 * its text (a command, a path, a file's content: its newlines and quotes as written), any
 * other value as JSON. Undefined for any other input (clipped, not JSON, not an object).
 */
function fieldsHtml(entry: CallEntry, settings: TurnSettings, base: string): string | undefined {
  if (entry.text.length < entry.chars || !entry.text.startsWith("{")) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(entry.text);
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const fields = Object.entries(value);
  if (fields.length === 0 || fields.length > MAX_FIELDS) return undefined;
  return `<dl class="input">${
    fields.map(([name, field]) => {
      const text = typeof field === "string" ? field : JSON.stringify(field, null, 2);
      const key = `${base}-${name}`;
      return `<dt>${escapeText(name)}</dt><dd>${
        textHtml(text, text.length, settings, { key, pre: true })
      }</dd>`;
    }).join("")
  }</dl>`;
}

function callHtml(
  entry: CallEntry,
  paired: OutputEntry | undefined,
  settings: TurnSettings,
): string {
  const attributes = [`class="entry call"`, `id="line-${entry.line}"`];
  attributes.push(`data-call-id="${escapeHtml(entry.callId)}"`);
  if (entry.orphan) attributes.push("data-orphan");
  const badge = entry.orphan ? ` <span class="badge warn">orphan call</span>` : "";
  const name = ` <span class="mono"><b>${escapeText(entry.name)}</b></span> <code>${
    escapeText(entry.callId)
  }</code>${badge}`;
  const edits = settings.adapter.own
    ? null
    : settings.adapter.edits?.(entry.name, entry.text) ?? null;
  const args = `<div class="args">${argumentsHtml(entry, edits, settings)}</div>`;
  let side: string;
  if (paired) {
    side = outputHtml(paired, settings, true);
  } else if (entry.output) {
    side = `<p class="note">Its output is at ${where(entry.output)}.</p>`;
  } else if (entry.orphan) {
    side = `<p class="note warn">⚠ No output: ${escapeText(settings.orphanFix)}.</p>`;
  } else {
    side = `<p class="note">No output; a later checkpoint removed the call from the history.</p>`;
  }
  return `<div ${attributes.join(" ")}>${head("tool call", entry.line, name)}<div class="io${
    edits ? " edit" : ""
  }">${args}${paired ? side : `<div>${side}</div>`}</div></div>`;
}

function checkpointHtml(
  entry: Extract<TurnEntry, { kind: "compaction_checkpoint" }>,
  settings: TurnSettings,
): string {
  const orphans = (settings.checkpointOrphans.get(entry.line) ?? []).map((call) =>
    `<div class="entry call" data-call-id="${escapeHtml(call.callId)}" data-orphan>${
      head(
        "tool call",
        call.line,
        ` <span class="mono"><b>${escapeText(call.name)}</b></span> <code>${
          escapeText(call.callId)
        }</code> <span class="badge warn">orphan call</span>`,
      )
    }<p class="note warn">⚠ In the checkpoint's replacement history without an output: ${
      escapeText(settings.orphanFix)
    }.</p></div>`
  ).join("");
  return `<div class="entry compaction" id="line-${entry.line}" data-checkpoint>${
    head(
      "compaction checkpoint",
      entry.line,
      ` <span class="badge compact">✂ history replaced</span>`,
    )
  }<p class="note">${escapeText(entry.reason)} (v${entry.version}): ${
    plural(entry.removedItemCount, "item")
  } removed, ${formatNumber(entry.keptItemCount)} kept, ${
    formatNumber(entry.tokensBefore)
  } tokens before; the history continues from its ${
    plural(entry.replacementItemCount, "item")
  }.</p>${orphans}</div>`;
}

function finishedHtml(
  entry: Extract<TurnEntry, { kind: "run_finished" }>,
  settings: TurnSettings,
): string {
  const mark = entry.outcome === "succeeded" ? "✓" : "✗";
  const parts = [plural(entry.rounds, "round")];
  if (entry.usage) {
    parts.push(
      `${formatNumber(entry.usage.totalTokens)} tokens (${
        formatNumber(entry.usage.inputTokens)
      } in, ${formatNumber(entry.usage.outputTokens)} out)`,
    );
  }
  const error = entry.error ? `: <span class="mono">${escapeText(entry.error)}</span>` : "";
  return `<div class="entry finished ${escapeHtml(entry.outcome)}" id="line-${entry.line}">${
    head(
      `${mark} ${settings.adapter.own ? "run" : "turn"} ${entry.outcome}`,
      entry.line,
      ` <span>${parts.join(", ")}${error}</span>`,
    )
  }</div>`;
}

function linkHtml(link: LinkedSession, settings: TurnSettings): string {
  const id = escapeText(link.id);
  const target = settings.sessionHref
    ? `<a href="${escapeHtml(settings.sessionHref(link.id, link.kind))}"><code>${id}</code></a>`
    : `<code>${id}</code>`;
  const title = link.title === null ? "" : ` ${escapeText(firstLine(link.title, 200))}`;
  return `<div class="entry linked" data-${link.kind}="${
    escapeHtml(link.id)
  }">${`<div class="head"><span class="role">${link.kind}</span> ${target}${title}${
    link.line === null ? "" : lineLink(link.line)
  }</div>`}${link.path === null ? "" : `<p class="note mono">${escapeText(link.path)}</p>`}</div>`;
}

function entryHtml(
  entry: TurnEntry,
  outputs: BlockOutputs,
  shownBeneath: Set<TurnEntry>,
  turnIndex: number | null,
  settings: TurnSettings,
): string {
  switch (entry.kind) {
    case "message":
      return `<div class="entry msg ${escapeHtml(entry.role)}" id="line-${entry.line}">${
        head(entry.role, entry.line)
      }${
        textHtml(entry.text, entry.chars, settings, {
          key: `line-${entry.line}`,
          pre: false,
          trim: true,
          markdown: entry.role === "assistant",
          // The system prompt is the same every run: out of the way unless asked for.
          ...(entry.role === "system" ? { collapse: true } : {}),
        })
      }</div>`;
    case "compaction_summary":
      return `<div class="entry compaction" id="line-${entry.line}">${
        head("compaction summary", entry.line)
      }${
        textHtml(entry.text, entry.chars, settings, { key: `line-${entry.line}`, pre: false })
      }</div>`;
    case "function_call": {
      const paired = outputs.answer(entry, turnIndex);
      if (paired) shownBeneath.add(paired);
      return callHtml(entry, paired, settings);
    }
    case "function_call_output":
      return outputHtml(entry, settings, false);
    case "compaction_checkpoint":
      return checkpointHtml(entry, settings);
    case "run_finished":
      return finishedHtml(entry, settings);
    case "session_meta":
    case "turn_context":
      return `<div class="entry stray" id="line-${entry.line}">${
        head(entry.kind, entry.line, " <span>a stray record (see problems)</span>")
      }</div>`;
    case "problem":
      return `<div class="entry problem" id="line-${entry.line}" data-problem="${
        escapeHtml(entry.problem)
      }">${
        head(
          `✗ ${entry.problem}`,
          entry.line,
          ` <span class="mono">${escapeText(withoutLocation(entry.message, entry.line))}</span>`,
        )
      }</div>`;
    case "ignored":
      return ignoredHtml(entry, settings);
  }
}

/**
 * What turnlog's model cannot hold (another tool's file: thinking, images): counted; thinking
 * the file keeps readable is shown too, folded.
 */
function ignoredHtml(
  entry: Extract<TurnEntry, { kind: "ignored" }>,
  settings: TurnSettings,
): string {
  const kinds = Object.entries(entry.kinds).sort((a, b) => b[1] - a[1])
    .map(([kind, n]) => `${formatNumber(n)} ${escapeText(kind)}`).join(", ");
  const lines = entry.lastLine > entry.line ? ` (lines ${entry.line}-${entry.lastLine})` : "";
  const text = entry.text === undefined
    ? ""
    : textHtml(entry.text, entry.chars ?? entry.text.length, settings, {
      key: `line-${entry.line}`,
      pre: false,
      markdown: true,
      collapse: true,
    });
  return `<div class="entry ignored" data-ignored="${
    escapeHtml(Object.keys(entry.kinds).join(" "))
  }">${
    head(
      entry.text === undefined ? "not shown" : "thinking",
      entry.line,
      ` <span class="muted">${kinds}${lines}</span>`,
    )
  }${text}</div>`;
}

/** The lines of a block (the header or a turn) as HTML, with the links that fall in it. */
export function blockHtml(
  block: Header | Turn,
  turnIndex: number | null,
  settings: TurnSettings,
): string {
  const entries = block.entries ?? [];
  const outputs = new BlockOutputs(entries);
  const shownBeneath = new Set<TurnEntry>();
  const links = turnIndex === null ? [] : [...(settings.links.get(turnIndex) ?? [])];
  const out: string[] = [];
  for (const entry of entries) {
    while (links.length > 0 && links[0]!.line !== null && links[0]!.line < entry.line) {
      out.push(linkHtml(links.shift()!, settings));
    }
    if (shownBeneath.has(entry)) continue;
    out.push(entryHtml(entry, outputs, shownBeneath, turnIndex, settings));
  }
  for (const link of links) out.push(linkHtml(link, settings));
  return out.join("\n");
}

/**
 * The prompt of a turn, for its one-line summary: the last user message before the first
 * answer or call (context a tool puts before the prompt comes first).
 */
function turnPrompt(turn: Turn): string | undefined {
  let prompt: string | undefined;
  for (const entry of turn.entries ?? []) {
    if (entry.kind === "message" && entry.role === "user") prompt = entry.text;
    else if (entry.kind === "message" && entry.role === "system") continue;
    else if (entry.kind !== "ignored" && prompt !== undefined) break;
  }
  return prompt;
}

/** Why a turn has no end, in the words of its file's tool. */
function unfinishedHtml(adapter: SessionAdapter, last: boolean): string {
  const words = unfinishedWords(adapter.own ? undefined : adapter.shortTool, last);
  return `<p class="unfinished">✗ ${escapeText(words[0]!.toUpperCase() + words.slice(1))}.</p>`;
}

/** A turn as a `<details data-turn>`: the boundary in its summary, its lines inside. */
export function turnHtml(
  turn: Turn,
  report: InspectReport,
  settings: TurnSettings & { open: boolean; whole: boolean },
): string {
  const last = turn === report.turns[report.turns.length - 1];
  const badges: string[] = [];
  if (turn.resumed) badges.push(`<span class="badge plain">resumed</span>`);
  if (turn.outcome === null) {
    badges.push(`<span class="badge warn">did not finish</span>`);
  } else {
    const style = turn.outcome === "succeeded" ? "ok" : turn.outcome === "failed" ? "bad" : "warn";
    badges.push(`<span class="badge ${style}">${escapeHtml(turn.outcome)}</span>`);
  }
  const synthesized = report.synthesizedOutputs.filter((s) => s.turn === turn.index).length;
  if (synthesized > 0) {
    badges.push(`<span class="badge synth">${plural(synthesized, "synthesized output")}</span>`);
  }
  const orphans = report.orphanCalls.filter((c) => c.turn === turn.index).length;
  if (orphans > 0) badges.push(`<span class="badge warn">${plural(orphans, "orphan call")}</span>`);
  if (turn.counts.problem_lines > 0) {
    badges.push(
      `<span class="badge bad">${plural(turn.counts.problem_lines, "damaged line")}</span>`,
    );
  }
  if (turn.counts.compaction_checkpoint > 0) {
    badges.push(`<span class="badge compact">compacted</span>`);
  }
  const prompt = turnPrompt(turn);
  // Another tool's turn: its id and model; turnlog's run policy is not the tool's word.
  const boundary = [
    `${settings.adapter.own ? "run" : "turn"} <code>${escapeText(turn.runId)}</code>`,
    escapeText(turn.model),
    ...(settings.adapter.own ? [`policy ${escapeText(turn.policy.approval)}`] : []),
    escapeText(formatTime(turn.time)),
    ...(turn.cost === undefined ? [] : [escapeText(formatCost(turn.cost, turn.cost === null))]),
    `lines ${turn.startLine}–${turn.endLine}`,
  ];
  const unfinished = turn.outcome === null ? unfinishedHtml(settings.adapter, last) : "";
  return `<details class="turn" id="turn-${turn.index}" data-turn="${turn.index}"${
    settings.open ? " open" : ""
  }><summary><b>Turn ${turn.index}</b> ${badges.join(" ")}${
    prompt === undefined ? "" : ` <span>“${escapeText(firstLine(prompt, 140))}”</span>`
  }<br><span class="meta">${boundary.join(" · ")}</span></summary><div class="body">${
    settings.whole
      ? blockHtml(turn, turn.index, settings)
      : `<p class="muted">This turn's lines are not on the page, to keep it small enough for a browser (the newer turns are whole); the text view (inspect) shows them.</p>`
  }${unfinished}</div></details>\n`;
}
