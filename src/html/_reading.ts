/**
 * The reading view of the session page: the conversation as people read it. Each turn is the
 * user's words, then the assistant's (markdown), its thinking folded, each tool call folded
 * with its result, and a subagent it started folded inline with that agent's own conversation.
 * Line numbers, bookkeeping and "not shown" rows stay in the record view, one link away.
 * Every string from the session goes through {@linkcode escapeText} or the markdown path.
 *
 * @module
 */
import {
  BlockOutputs,
  type InspectReport,
  type Turn,
  type TurnEntry,
  unfinishedWords,
} from "../inspect/mod.ts";
import { escapeHtml, escapeText, firstLine } from "./_escape.ts";
import { formatNumber, formatTime, plural } from "../text/mod.ts";
import type { LinkedSession } from "./_links.ts";
import { argumentsHtml, textHtml, type TurnSettings } from "./_turn.ts";
import { markdownHtml } from "./_markdown.ts";

/** What the reading view needs besides the turn: the page's settings and the subagents read. */
export interface ReadingSettings extends TurnSettings {
  /** The reports of the subagents the session started, by id, to show inline (absent: linked). */
  subagents: ReadonlyMap<string, InspectReport>;
}

type CallEntry = Extract<TurnEntry, { kind: "function_call" }>;
type OutputEntry = Extract<TurnEntry, { kind: "function_call_output" }>;
type IgnoredEntry = Extract<TurnEntry, { kind: "ignored" }>;

/** The kinds of ignored thing that are the model's thinking, in each tool's word. */
const THINKING: ReadonlySet<string> = new Set(["thinking", "reasoning", "thoughts"]);

/** Fields of a tool's input that say best what a call does, in the order looked for. */
const PREVIEW_FIELDS = [
  "command",
  "cmd",
  "file_path",
  "path",
  "absolute_path",
  "pattern",
  "url",
  "query",
  "description",
  "prompt",
];

/** A call's input in a few words for its folded line: its command, path or query. */
function callPreview(entry: CallEntry): string {
  let value: unknown;
  try {
    value = JSON.parse(entry.text);
  } catch {
    return firstLine(entry.text, 120);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return firstLine(entry.text, 120);
  }
  const fields = value as Record<string, unknown>;
  for (const name of PREVIEW_FIELDS) {
    const field = fields[name];
    if (typeof field === "string" && field.trim() !== "") return firstLine(field, 120);
    if (Array.isArray(field) && field.every((part) => typeof part === "string")) {
      return firstLine(field.join(" "), 120);
    }
  }
  const first = Object.values(fields).find((field) => typeof field === "string");
  return typeof first === "string" ? firstLine(first, 120) : "";
}

/** The who of a message: its role, said as a reader says it. */
const WHO: Record<"user" | "assistant" | "system", string> = {
  user: "User",
  assistant: "Assistant",
  system: "System",
};

function messageHtml(
  entry: Extract<TurnEntry, { kind: "message" }>,
  settings: ReadingSettings,
): string {
  const key = `read-${entry.line}`;
  if (entry.role === "system") {
    // Instructions and context a tool injects: there, but out of the reader's way.
    return `<details class="say system" data-key="${key}"><summary>${WHO.system}: ${
      escapeText(firstLine(entry.text, 100))
    }</summary>${
      textHtml(entry.text, entry.chars, settings, { key, pre: false, trim: true, collapse: false })
    }</details>`;
  }
  return `<div class="say ${entry.role}" data-role="${entry.role}"><div class="who">${
    WHO[entry.role]
  }</div>${
    textHtml(entry.text, entry.chars, settings, {
      key,
      pre: false,
      trim: true,
      collapse: false,
      markdown: entry.role === "assistant",
    })
  }</div>`;
}

/**
 * Characters of a tool's result the reading view holds: enough to read; the whole (up to the
 * page's limit) is in the record view, linked. Results are most of a session's bytes, and the
 * page holds each turn twice.
 */
const RESULT_CHARS = 600;

function resultHtml(output: OutputEntry, settings: ReadingSettings): string {
  const what = output.synthesized
    ? `<p class="note">Written by resume, not by the tool: the call was interrupted.</p>`
    : "";
  const chars = Math.min(settings.textChars, RESULT_CHARS);
  const rest = output.chars > chars
    ? `<p class="note"><a href="#line-${output.line}">The whole result is in the record view</a>.</p>`
    : "";
  return `<div class="result${output.isError ? " error" : ""}"><div class="label">${
    output.isError ? "Error" : "Result"
  }</div>${what}${
    textHtml(output.text, output.chars, { ...settings, textChars: chars }, {
      key: `read-${output.line}`,
      pre: true,
      collapse: false,
    })
  }${rest}</div>`;
}

function toolHtml(entry: CallEntry, output: OutputEntry | undefined, settings: ReadingSettings) {
  const edits = settings.adapter.own
    ? null
    : settings.adapter.edits?.(entry.name, entry.text) ?? null;
  const preview = callPreview(entry);
  const state = output
    ? output.isError ? `<span class="badge bad">error</span>` : ""
    : `<span class="badge warn">no result</span>`;
  const result = output
    ? resultHtml(output, settings)
    : entry.output
    ? `<p class="note">Its result is in a later turn (<a href="#line-${entry.output.line}">line ${entry.output.line}</a>).</p>`
    : `<p class="note warn">No result in the file: ${escapeText(settings.orphanFix)}.</p>`;
  return `<details class="tool" data-tool-call="${
    escapeHtml(entry.callId)
  }" data-key="read-${entry.line}"><summary><span class="tname">${
    escapeText(entry.name)
  }</span> <span class="preview">${
    escapeText(preview)
  }</span> ${state}</summary><div class="input">${
    argumentsHtml(entry, edits, settings, `read-${entry.line}`)
  }</div>${result}</details>`;
}

/** Thinking: its text folded when the file holds it readable, else a note of how much. */
function thinkingHtml(entry: IgnoredEntry): string {
  const count = Object.entries(entry.kinds).filter(([kind]) => THINKING.has(kind))
    .reduce((sum, [, n]) => sum + n, 0);
  if (count === 0) return "";
  if (entry.text === undefined) {
    return `<p class="thinking-note" data-thinking="hidden">${
      count === 1 ? "Thinking" : `${formatNumber(count)} thinking blocks`
    }: kept in the file signed or encrypted, not readable.</p>`;
  }
  const chars = entry.chars ?? entry.text.length;
  return `<details class="thinking" data-thinking="shown" data-key="read-${entry.line}"><summary>Thinking <span class="muted">(${
    plural(chars, "char")
  })</span></summary><div class="text md">${markdownHtml(entry.text)}</div>${
    entry.text.length < chars
      ? `<p class="clipped">Clipped: ${formatNumber(entry.text.length)} of ${
        formatNumber(chars)
      } characters shown.</p>`
      : ""
  }</details>`;
}

/** Images and other content the conversation held that the page cannot show: said once. */
function unshownHtml(entry: IgnoredEntry): string {
  const images = entry.kinds.image ?? 0;
  return images === 0 ? "" : `<p class="muted unshown">(${plural(images, "image")} not shown)</p>`;
}

/**
 * A subagent, folded: its task, a link to its page, and (from its report, when the page has it)
 * its conversation, turn by turn (`[data-subagent-turn]`).
 */
export function subagentHtml(
  link: LinkedSession,
  settings: ReadingSettings,
  depth: number,
): string {
  const report = settings.subagents.get(link.id);
  const href = settings.sessionHref?.(link.id, link.kind);
  const title = link.title === null ? "" : ` ${escapeText(firstLine(link.title, 140))}`;
  const open = href === undefined
    ? ""
    : `<p class="note"><a href="${escapeHtml(href)}">Open the subagent's page</a></p>`;
  // A subagent's own subagents are linked, not nested again.
  const body = report === undefined || depth > 0
    ? `<p class="note">Its transcript is not on this page.</p>`
    : report.turns.map((turn) =>
      `<div class="rturn nested" data-subagent-turn="${turn.index}">${
        readingBody(turn, report, { ...settings, links: new Map() }, depth + 1)
      }</div>`
    ).join("");
  return `<details class="subagent" data-subagent="${escapeHtml(link.id)}" data-key="read-agent-${
    escapeHtml(link.id)
  }"><summary><span class="tname">Subagent</span> <code>${escapeText(link.id)}</code>${title}${
    report === undefined
      ? ""
      : ` <span class="muted">(${plural(report.turns.length, "turn")})</span>`
  }</summary>${open}${body}</details>`;
}

/** The conversation of a turn, in file order, each call with its result. */
function readingBody(
  turn: Turn,
  report: InspectReport,
  settings: ReadingSettings,
  depth = 0,
): string {
  const entries = turn.entries ?? [];
  const outputs = new BlockOutputs(entries);
  const shown = new Set<TurnEntry>();
  const links = [...(settings.links.get(turn.index) ?? [])].filter((l) => l.kind === "subagent");
  const out: string[] = [];
  for (const entry of entries) {
    // A subagent goes right after the line that names it (the result of the call that ran it).
    while (links.length > 0 && links[0]!.line !== null && links[0]!.line < entry.line) {
      out.push(subagentHtml(links.shift()!, settings, depth));
    }
    if (shown.has(entry)) continue;
    switch (entry.kind) {
      case "message":
        out.push(messageHtml(entry, settings));
        break;
      case "compaction_summary":
        out.push(
          `<details class="say summary" data-key="read-${entry.line}"><summary>Summary of the earlier conversation (a compaction)</summary>${
            textHtml(entry.text, entry.chars, settings, {
              key: `read-${entry.line}`,
              pre: false,
              collapse: false,
            })
          }</details>`,
        );
        break;
      case "function_call": {
        const output = outputs.answer(entry, turn.index);
        if (output) shown.add(output);
        out.push(toolHtml(entry, output, settings));
        break;
      }
      case "function_call_output":
        // An answer to a call of an earlier turn, or to none: shown on its own.
        out.push(
          `<details class="tool" data-key="read-${entry.line}"><summary><span class="tname">${
            escapeText(entry.toolName)
          }</span> <span class="preview">result</span></summary>${
            resultHtml(entry, settings)
          }</details>`,
        );
        break;
      case "ignored":
        out.push(thinkingHtml(entry) + unshownHtml(entry));
        break;
      case "compaction_checkpoint":
        out.push(
          `<p class="note compacted">✂ The history was compacted here: ${
            plural(entry.removedItemCount, "item")
          } replaced by a summary.</p>`,
        );
        break;
      case "run_finished":
        if (entry.error !== null) {
          out.push(
            `<p class="note warn">✗ The turn ${escapeText(entry.outcome)}: ${
              escapeText(entry.error)
            }</p>`,
          );
        }
        break;
      case "problem":
        out.push(
          `<p class="note warn">✗ Line ${entry.line} is damaged (<a href="#line-${entry.line}">see the records</a>).</p>`,
        );
        break;
      case "session_meta":
      case "turn_context":
        break;
    }
  }
  for (const link of links) out.push(subagentHtml(link, settings, depth));
  if (turn.outcome === null) {
    const tool = settings.adapter.own ? undefined : settings.adapter.shortTool;
    const words = unfinishedWords(tool, report.turns.at(-1) === turn);
    out.push(
      `<p class="unfinished">✗ ${escapeText(words[0]!.toUpperCase() + words.slice(1))}.</p>`,
    );
  }
  return out.join("\n");
}

/**
 * One turn of the reading view (`[data-reading-turn]`): a line naming it (time, model, how it
 * ended, a link to its lines in the record view), then its conversation, or, for a turn the
 * page's size budget keeps short, a note.
 */
export function readingTurnHtml(
  turn: Turn,
  report: InspectReport,
  settings: ReadingSettings & { whole: boolean },
): string {
  const facts = [escapeText(formatTime(turn.time)), escapeText(turn.model)];
  if (turn.outcome === null) facts.push(`<span class="warn">did not finish</span>`);
  else if (turn.outcome !== "succeeded") {
    facts.push(`<span class="bad">${escapeText(turn.outcome)}</span>`);
  }
  const body = settings.whole
    ? readingBody(turn, report, settings)
    : `<p class="muted">This turn is not on the page, to keep it small enough for a browser (the newer turns are whole); the text view (inspect) shows it.</p>`;
  return `<section class="rturn" id="read-turn-${turn.index}" data-reading-turn="${turn.index}"><p class="rhead"><a href="#turn-${turn.index}">Turn ${turn.index}</a> · ${
    facts.join(" · ")
  }</p>${body}</section>\n`;
}
