/**
 * The text view's session header (what people look for first: title or first prompt, models,
 * working directory, git branch, tokens) and the sections on the sessions linked to it (forks
 * and subagents). Pure.
 *
 * @module
 */
import { formatAside, formatCost } from "../usage/_render.ts";
import { fileNounOf, type SessionAdapter } from "../formats/mod.ts";
import { formatNumber, formatTime, oneLine, type Painter, visible } from "../text/mod.ts";
import type { InspectReport, SessionFacts } from "./_types.ts";
import { verdictOf } from "./_verdict.ts";

/** Counts by kind, largest first: `12 reasoning, 1 image`. */
export function kindCounts(counts: Record<string, number>): string {
  return Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, n]) => `${formatNumber(n)} ${visible(kind)}`).join(", ");
}

const TONES = { ok: "green", bad: "red", warn: "yellow" } as const;

/** The verdict beside the session's id: healthy, its findings, or a file without a conversation. */
function verdict(report: InspectReport, paint: Painter): string {
  const { tone, words } = verdictOf(report);
  return paint(TONES[tone], words);
}

function modelLine(session: SessionFacts): string {
  const models = session.models.length > 0
    ? session.models
    : session.model === null
    ? []
    : [session.model];
  if (models.length === 0) return "unknown";
  const where = [session.modelProvider, session.wireApi].filter((x) => x !== null);
  return `${models.map(visible).join(", ")}${
    where.length > 0 ? ` (${where.map((x) => visible(x!)).join(", ")})` : ""
  }`;
}

/** The session's cost and where it came from; the models without a price named. */
function costLine(report: InspectReport): string | undefined {
  const cost = report.session.cost;
  if (cost === undefined) return undefined;
  const unpriced = cost.unpricedModels.length > 0;
  const money = formatCost(cost.usd, unpriced);
  const without = unpriced ? `; no price for ${cost.unpricedModels.map(visible).join(", ")}` : "";
  const aside = cost.aside === undefined ? "" : `; ${formatAside(cost.aside)}`;
  return cost.usd === null
    ? `${money}${without}${aside}`
    : `${money} (${cost.source})${without}${aside}`;
}

function tokensLine(report: InspectReport): string | undefined {
  const tokens = report.session.tokens;
  if (tokens === null) return undefined;
  const parts = [`${formatNumber(tokens.input)} in`, `${formatNumber(tokens.output)} out`];
  if (tokens.cacheRead > 0) parts.push(`${formatNumber(tokens.cacheRead)} read from cache`);
  if (tokens.cacheCreation > 0) parts.push(`${formatNumber(tokens.cacheCreation)} cached`);
  if (tokens.reasoningOutput > 0) parts.push(`${formatNumber(tokens.reasoningOutput)} reasoning`);
  return `${formatNumber(tokens.total)} (${parts.join(", ")})`;
}

/** The session's header lines, the size line given (the caller words it). */
export function sessionHeader(
  report: InspectReport,
  look: { paint: Painter; adapter: SessionAdapter },
  size: string,
): string[] {
  const { paint, adapter } = look;
  const { session, totals } = report;
  const out: string[] = [];
  const field = (name: string, value: string | null | undefined) => {
    if (value !== null && value !== undefined) {
      out.push(`  ${paint("dim", name.padEnd(9))}${value}`);
    }
  };
  out.push(
    `${paint("bold", `Session ${session.id === null ? "(unknown id)" : visible(session.id)}`)}  ${
      verdict(report, paint)
    }`,
  );
  if (!adapter.own) {
    field(
      "format",
      `${fileNounOf(session.format)}${
        session.toolVersion ? ` (version ${visible(session.toolVersion)})` : ""
      }`,
    );
  }
  field("title", session.title === null ? null : visible(oneLine(session.title, 100)));
  field("prompt", session.firstPrompt === null ? null : visible(oneLine(session.firstPrompt, 100)));
  field("file", visible(session.path));
  field("size", size);
  field("created", session.created ? formatTime(session.created) : "unknown");
  if (session.updated && session.created && session.updated > session.created) {
    field("updated", formatTime(session.updated));
  }
  field("cwd", session.cwd === null ? "unknown" : visible(session.cwd));
  field("branch", session.gitBranch === null ? null : visible(session.gitBranch));
  field(session.models.length > 1 ? "models" : "model", modelLine(session));
  if (adapter.own) {
    field(
      "policy",
      `${session.policy?.approval ?? "unknown"}${
        session.approvalSource && session.approvalSource !== session.policy?.approval
          ? ` (${visible(session.approvalSource)})`
          : ""
      }`,
    );
  } else {
    // The tool's own word for its approvals, as the page says it; none when the file has none.
    field("approval", session.approvalSource === null ? null : visible(session.approvalSource));
  }
  field("tokens", tokensLine(report));
  field("cost", costLine(report));
  field(
    "turns",
    `${
      formatNumber(totals.turns)
    } (${totals.resumedTurns} resumed, ${totals.unfinishedTurns} did not finish)`,
  );
  if (totals.counts.ignored > 0) field("ignored", kindCounts(totals.ignored));
  const forked = session.forkedFrom;
  if (forked) {
    const upTo = forked.turn === null ? "every turn" : `the turns before turn ${forked.turn}`;
    field("forked", `from ${visible(forked.sessionId)} (${upTo})`);
  }
  const from = session.importedFrom;
  if (from) {
    field(
      "imported",
      `from the ${visible(fileNounOf(from.format))} ${visible(from.path)}${
        from.sessionId ? ` (session ${visible(from.sessionId)})` : ""
      }`,
    );
  }
  session.notes.forEach((note, i) => field(i === 0 ? "read" : "", visible(note)));
  out.push("");
  return out;
}

/** The forks and subagents, each a line with where the link is. */
export function linkedSections(report: InspectReport, paint: Painter): string[] {
  const out: string[] = [];
  const where = (line: number | null, turn: number | null) =>
    line === null ? "" : ` (line ${line}${turn === null ? "" : `, turn ${turn}`})`;
  if (report.forks.length > 0) {
    out.push(
      paint("bold", `Forks: branches that are not the conversation (${report.forks.length})`),
    );
    for (const fork of report.forks) {
      const from = fork.fromLine === null ? "a tree of its own" : `off line ${fork.fromLine}`;
      out.push(
        `  line ${fork.line}${fork.turn === null ? "" : ` (turn ${fork.turn})`}: ${
          visible(fork.title)
        }, ${from}`,
      );
    }
    out.push("");
  }
  if (report.subagents.length > 0) {
    out.push(paint("bold", `Subagents (${report.subagents.length})`));
    for (const agent of report.subagents) {
      const title = agent.title === null ? "" : `: ${visible(oneLine(agent.title, 80))}`;
      out.push(`  ${visible(agent.id)}${where(agent.line, agent.turn)}${title}`);
      out.push(`    ${paint("dim", visible(agent.path))}`);
    }
    out.push("");
  }
  return out;
}
