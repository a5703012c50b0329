/**
 * The session page: an inspection report as one self-contained HTML document (styles inline,
 * charts inline as SVG, no request to anywhere), produced in pieces so a caller streams it.
 *
 * @module
 */
import { formatAside, formatCost, type SessionCost } from "../usage/mod.ts";
import { type InspectReport, type OrphanCall, tokenTotal, verdictOf } from "../inspect/mod.ts";
import { escapeHtml, escapeText, escapeTitle, firstLine } from "./_escape.ts";
import { formatBytes, formatNumber, formatTime, plural } from "../text/mod.ts";
import { adapterOfData, type SessionAdapter } from "../formats/mod.ts";
import { formatWords, orphanFix, sessionFormat } from "./_facts.ts";
import { chartsHtml, findingsHtml } from "./_sections.ts";
import { planTurns, type TurnPlan } from "./_budget.ts";
import { type LinkedSession, linkedSessions, type LinkKind } from "./_links.ts";
import { contentSecurityPolicy, CONTINUE_SCRIPT, LIVE_SCRIPT } from "./_live.ts";
import { PAGE_STYLE } from "./_style.ts";
import { blockHtml, turnHtml } from "./_turn.ts";
import { type ReadingSettings, readingTurnHtml, subagentHtml } from "./_reading.ts";
import { DiffBudget } from "./_diff.ts";

/**
 * What the session page needs of an inspection (`inspectSession(path, { ...this })`): every
 * line, and a tool call's input whole up to 20,000 characters, so an edit shows as a diff.
 */
export const SESSION_PAGE_INSPECTION = { entries: true, callTextLimit: 20_000 } as const;

/** Options of {@linkcode renderSessionPage} and {@linkcode sessionPagePieces}. */
export interface SessionPageOptions {
  /** The session's title (from an index, say); absent: its first user message. */
  title?: string;
  /** Characters of one text (message, arguments, output) the page holds. @default 2000 */
  textChars?: number;
  /** A text longer than this many characters is collapsed behind its first line. @default 600 */
  collapseChars?: number;
  /** A text of more lines than this is collapsed behind its first line. @default 12 */
  collapseLines?: number;
  /** How many of the newest turns are open; older ones show their summary line. @default 25 */
  openTurns?: number;
  /** How many of the newest turns the charts draw (more would crowd them). @default 50 */
  chartTurns?: number;
  /**
   * Bytes of HTML the turns shown whole may take, about: from the newest back, turns are
   * whole while they fit (the newest always is); older ones show their summary line only.
   * @default 12_000_000
   */
  maxPageBytes?: number;
  /** Turns on the page at most; older ones are left off with a note. @default 5000 */
  maxTurns?: number;
  /** Items of one list of findings shown; the rest are counted. @default 1000 */
  maxFindings?: number;
  /**
   * Milliseconds the page's diffs may take together; the edits past it are shown as removed
   * then added lines, with a note (each one's diff also stops at 50 ms). @default 250
   */
  diffBudgetMs?: number;
  /**
   * A live page (served): the URL of the session's Server-Sent Events (see `_live.ts` for
   * the events it expects). The page then runs its one script, allowed by its hash.
   */
  live?: { eventsUrl: string };
  /**
   * "Continue in…" (a live page): a button per target tool that posts `{"to": <target>}` as
   * JSON to `url`, which writes the session as a new one of that tool and answers what
   * `export --json` prints; the page then shows the command that resumes it.
   */
  continueIn?: { url: string; targets: readonly ContinueTarget[] };
  /** Where a link to another session (a fork, a subagent) goes; absent: no links. */
  sessionHref?: (id: string, kind?: LinkKind) => string;
  /** The URL of the list of sessions, linked from the page's top (served pages). */
  listHref?: string;
  /** A line said under the title (a served page: "Claude Code is writing this session"). */
  notice?: string;
  /**
   * The first turn (its `index`) the page holds: the rest of a live page's refresh, whose
   * older turns the page has already (the header, findings and charts are whole). Absent: every
   * turn the budget lets on.
   */
  fromTurn?: number;
  /**
   * The reports of subagents the session started (`report.subagents`), by id: the reading view
   * shows each one's conversation inline, folded, where it was started. Absent: linked only.
   */
  subagents?: ReadonlyMap<string, InspectReport>;
  /**
   * What a live page was rendered from, for its next refresh to say (`data-revision` of
   * `#session`): the server's reading of the file (see the server's `SessionFollower`).
   */
  revision?: string;
  /**
   * The inode, size and time of the file the page was read from (`data-stamp` of `#session`): a
   * live page's first event tells a rewrite at the same size made before it connected by it.
   */
  stamp?: string;
}

/** A tool the session page offers to continue a session in. */
export interface ContinueTarget {
  /** What `export --to` takes (`codex`). */
  to: string;
  /** The tool's name on the button (`Codex`). */
  tool: string;
}

type Resolved = ReadingSettings & {
  openTurns: number;
  chartTurns: number;
  maxFindings: number;
  plan: TurnPlan;
};

function resolve(report: InspectReport, options: SessionPageOptions): Resolved {
  const checkpointOrphans = new Map<number, OrphanCall[]>();
  for (const call of report.orphanCalls) {
    if (!call.inCheckpoint) continue;
    const list = checkpointOrphans.get(call.line) ?? [];
    list.push(call);
    checkpointOrphans.set(call.line, list);
  }
  const links = new Map<number, LinkedSession[]>();
  for (const link of linkedSessions(report)) {
    if (link.turn === null) continue;
    const list = links.get(link.turn) ?? [];
    list.push(link);
    links.set(link.turn, list);
  }
  for (const list of links.values()) {
    list.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  }
  // The one look-up by name: a report holds its format's name, not its adapter.
  const adapter = adapterOfData(report.session);
  return {
    orphanFix: orphanFix(adapter),
    adapter,
    textChars: options.textChars ?? 2000,
    collapseChars: options.collapseChars ?? 600,
    collapseLines: options.collapseLines ?? 12,
    openTurns: options.openTurns ?? 25,
    chartTurns: options.chartTurns ?? 50,
    maxFindings: options.maxFindings ?? 1000,
    plan: planTurns(report.turns, {
      maxBytes: options.maxPageBytes ?? 12_000_000,
      maxTurns: options.maxTurns ?? 5000,
      textChars: options.textChars ?? 2000,
    }),
    sessionHref: options.sessionHref,
    diffBudget: new DiffBudget(options.diffBudgetMs ?? 250),
    diffs: new Map(),
    checkpointOrphans,
    links,
    subagents: options.subagents ?? new Map(),
  };
}

/**
 * The first prompt the user wrote (not context a tool injected before it): the one the text
 * view's header shows (`session.firstPrompt`), if the session has one.
 */
export function firstPrompt(report: InspectReport): string | undefined {
  return report.session.firstPrompt ?? undefined;
}

function headHtml(report: InspectReport, title: string, options: SessionPageOptions): string {
  const id = report.session.id ?? "(unknown id)";
  const csp = contentSecurityPolicy({ live: options.live !== undefined, header: false });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light dark">
<meta name="generator" content="turnlog">
<title>${escapeTitle(firstLine(title, 80))} · session ${
    escapeTitle(id.slice(0, 13))
  } · turnlog</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
`;
}

/** What the page shows: `Claude Code session`, `Codex session`, a `turnlog session`. */
function sessionNoun(adapter: SessionAdapter): string {
  return adapter.own ? adapter.fileNoun : `${adapter.shortTool} session`;
}

/** The verdict's badge: `healthy`, what is wrong, or that the file holds no conversation. */
function healthBadges(report: InspectReport): string {
  const { tone, words } = verdictOf(report);
  return `<span class="badge ${tone}">${escapeText(words)}</span>`;
}

/** The session's tokens as the text view gives them: the total, then in and out. */
function tokensHtml(report: InspectReport): string {
  const tokens = report.session.tokens;
  if (tokens === null || tokens.total === 0) return "none reported";
  return `${formatNumber(tokens.total)} <span class="muted">(${formatNumber(tokens.input)} in, ${
    formatNumber(tokens.output)
  } out)</span>`;
}

/** The session's cost, where it came from, and the models without a price. */
function costHtml(cost: SessionCost): string {
  const unpriced = cost.unpricedModels.length > 0;
  const about = [
    ...(cost.usd === null ? [] : [cost.source]),
    ...(unpriced ? [`no price for ${cost.unpricedModels.join(", ")}`] : []),
    ...(cost.aside === undefined ? [] : [formatAside(cost.aside)]),
  ];
  return `${escapeText(formatCost(cost.usd, unpriced))}${
    about.length === 0 ? "" : ` <span class="muted">(${escapeText(about.join("; "))})</span>`
  }`;
}

function sessionHeader(
  report: InspectReport,
  title: string,
  options: SessionPageOptions & { adapter: SessionAdapter },
): string {
  const { adapter } = options;
  const { session, totals } = report;
  const models = [...new Set([session.model, ...report.turns.map((t) => t.model)])]
    .filter((m): m is string => m !== null);
  const field = (name: string, value: string) => `<dt>${name}</dt><dd>${value}</dd>`;
  const health = healthBadges(report);
  const kicker = [
    escapeText(sessionNoun(adapter)),
    ...(options.live ? [`<span id="live" data-state="connecting">connecting</span>`] : []),
    ...(options.listHref ? [`<a href="${escapeHtml(options.listHref)}">all sessions</a>`] : []),
  ];
  const lastTurn = report.turns.at(-1);
  return `<header id="session" data-session-id="${
    escapeHtml(session.id ?? "")
  }" data-size-bytes="${session.sizeBytes}" data-healthy="${report.healthy}" data-tokens="${
    tokenTotal(report)
  }" data-format="${escapeHtml(sessionFormat(report))}"${
    options.revision === undefined ? "" : ` data-revision="${escapeHtml(options.revision)}"`
  }${options.stamp === undefined ? "" : ` data-stamp="${escapeHtml(options.stamp)}"`}>
<p class="kicker">${kicker.join(" · ")}</p>
<h1>${escapeText(title)}</h1>
${options.notice ? `<p id="writing" class="note">${escapeText(options.notice)}</p>\n` : ""}<dl>
${field("id", `<code>${escapeText(session.id ?? "unknown")}</code> ${health}`)}
${field("format", escapeText(formatWords(report, adapter)))}
${session.title === null ? "" : field("title", escapeText(session.title))}
${
    field(
      models.length === 1 ? "model" : "models",
      models.length === 0
        ? "unknown"
        : `${models.map(escapeText).join(", ")}${
          session.modelProvider
            ? ` <span class="muted">(${escapeText(session.modelProvider)}${
              session.wireApi ? `, ${escapeHtml(session.wireApi)}` : ""
            })</span>`
            : ""
        }`,
    )
  }
${
    field(
      "cwd",
      session.cwd === null ? "unknown" : `<span class="mono">${escapeText(session.cwd)}</span>`,
    )
  }
${field("created", session.created === null ? "unknown" : escapeText(formatTime(session.created)))}
${session.approvalSource === null ? "" : field("approvals", escapeText(session.approvalSource))}
${
    field(
      "size",
      // Another tool's file has lines; the turnlog records they were read into are turnlog's.
      [
        formatBytes(session.sizeBytes),
        ...(adapter.own ? [plural(session.records, "record")] : []),
        plural(session.lines, "line"),
      ].join(" · "),
    )
  }
${
    field(
      "turns",
      `${formatNumber(totals.turns)} <span class="muted">(${
        formatNumber(totals.resumedTurns)
      } resumed, ${formatNumber(totals.unfinishedTurns)} did not finish)</span>`,
    )
  }
${field("tokens", tokensHtml(report))}
${report.session.cost === undefined ? "" : field("cost", costHtml(report.session.cost))}
${field("file", `<span class="mono">${escapeText(session.path)}</span>`)}
${
    // How the file was read (a fork's history, a model swap), as the text view's `read` says.
    session.notes.length === 0 ? "" : field("read", session.notes.map(escapeText).join("<br>"))}
</dl>
<nav id="views"><a href="#reading" data-view="reading">Conversation</a><a href="#records" data-view="records">Records (every line)</a><a href="#findings">Findings</a><a href="#charts">Charts</a>${
    lastTurn ? `<a href="#read-turn-${lastTurn.index}">Last turn</a>` : ""
  }</nav>
</header>
`;
}

function turnsOpening(report: InspectReport, settings: Resolved, fromTurn?: number): string {
  const count = report.turns.length;
  const { firstListed, firstWhole } = settings.plan;
  const firstOpen = Math.max(firstWhole, count - settings.openTurns);
  const range = (from: number, to: number) =>
    from + 1 === to
      ? `Turn ${formatNumber(to)} is`
      : `Turns ${formatNumber(from + 1)}–${formatNumber(to)} are`;
  const notes: string[] = [];
  if (firstListed > 0) {
    notes.push(
      `${
        range(0, firstListed)
      } left off this page, to keep it small enough for a browser; the text view (inspect) shows every turn.`,
    );
  }
  if (firstWhole > firstListed) {
    notes.push(`${range(firstListed, firstWhole)} shown by their summary line only.`);
  }
  if (firstOpen > firstWhole) {
    notes.push(
      `${range(firstWhole, firstOpen)} folded to their summary line; open one to read it.`,
    );
  }
  if (report.turns.some((t) => t.entries === undefined)) {
    notes.push("The report has no entries (inspect with entries to see every line).");
  }
  const header = report.header.entries && report.header.entries.length > 0
    ? `<details class="turn" id="header" data-header open><summary><b>Before the first turn</b> <span class="meta">lines 1–${report.header.endLine}</span></summary><div class="body">${
      blockHtml(report.header, null, settings)
    }</div></details>\n`
    : "";
  // A refresh's turns replace the page's from this one on.
  const from = fromTurn === undefined ? "" : ` data-from="${fromTurn}"`;
  return `<section id="turns"${from} data-turns="${count}" data-first-listed="${
    firstListed + 1
  }" data-first-whole="${firstWhole + 1}"><h2>Turns (${formatNumber(count)})</h2>${
    notes.map((n) => `<p class="muted">${n}</p>`).join("")
  }\n${header}`;
}

/** How the session goes on, and how to repair it, for its format. */
function nextStepsHtml(report: InspectReport, adapter: SessionAdapter): string[] {
  const lines: string[] = [];
  const command = report.continueCommand ? `<pre>${escapeText(report.continueCommand)}</pre>` : "";
  if (!adapter.own) {
    if (command) {
      lines.push(
        `<p>Continue it in turnlog (a new session; this file is only read):</p>${command}`,
      );
    }
  } else if (command) lines.push(`<p>Continue this session:</p>${command}`);
  else lines.push(`<p>No continue command: the file is not in a sessions store under its id.</p>`);
  if (!report.healthy) {
    const what = adapter.own
      ? "what would be done"
      : `what would change in this ${escapeText(adapter.fileNoun)}`;
    lines.push(
      `<p>Repair: <code>inspect --repair</code> shows ${what}, <code>--repair --write</code> does it.</p>`,
    );
  }
  return lines;
}

function footerHtml(
  report: InspectReport,
  options: SessionPageOptions & { adapter: SessionAdapter },
): string {
  const lines = nextStepsHtml(report, options.adapter);
  lines.push(
    `<p>Made by turnlog from an inspection (report version ${report.version}) of ${
      escapeText(report.session.path)
    }.</p>`,
  );
  let script = options.live
    ? `<script data-events="${escapeHtml(options.live.eventsUrl)}">${LIVE_SCRIPT}</script>\n`
    : "";
  const offered = options.live ? options.continueIn : undefined;
  if (offered !== undefined && offered.targets.length > 0) {
    const buttons = offered.targets.map((target) =>
      `<button type="button" data-to="${escapeHtml(target.to)}">${escapeText(target.tool)}</button>`
    );
    lines.unshift(
      `<section id="continue"><p>Continue in another tool (a new session of it; this file is only read): ${
        buttons.join(" ")
      }</p><output id="continue-result"></output></section>`,
    );
    script += `<script data-url="${escapeHtml(offered.url)}">${CONTINUE_SCRIPT}</script>\n`;
  }
  return `</section>\n</div>\n<footer>${lines.join("\n")}</footer>\n${script}</body>\n</html>\n`;
}

/**
 * The session page in pieces, in order: the head, header, findings and charts, then one
 * piece per turn, then the end. Join them for the document, or write each as it comes to a
 * file or a response: no piece holds more than one turn.
 *
 * @example
 * ```ts ignore
 * const file = await Deno.open("session.html", { write: true, create: true, truncate: true });
 * await sessionPageStream(report).pipeTo(file.writable);
 * ```
 */
export function* sessionPagePieces(
  report: InspectReport,
  options: SessionPageOptions = {},
): Generator<string> {
  const settings = resolve(report, options);
  const title = options.title ?? firstPrompt(report) ?? "(no user message)";
  yield headHtml(report, title, options);
  yield sessionHeader(report, title, { ...options, adapter: settings.adapter });
  const { firstListed, firstWhole } = settings.plan;
  const firstOpen = Math.max(firstWhole, report.turns.length - settings.openTurns);
  const from = options.fromTurn === undefined
    ? firstListed
    : report.turns.findIndex((turn) => turn.index >= options.fromTurn!);
  const first = Math.max(firstListed, from === -1 ? Infinity : from);
  // The reading view first (the default), then the record view: one report, both views.
  yield readingOpening(report, settings);
  for (let position = first; position < report.turns.length; position++) {
    yield readingTurnHtml(report.turns[position]!, report, {
      ...settings,
      whole: position >= firstWhole,
    });
  }
  yield `</main>\n<div id="records">\n`;
  yield findingsHtml(report, settings);
  yield chartsHtml(report, settings);
  yield turnsOpening(report, settings, options.fromTurn);
  for (let position = first; position < report.turns.length; position++) {
    yield turnHtml(report.turns[position]!, report, {
      ...settings,
      whole: position >= firstWhole,
      open: position >= firstOpen,
    });
  }
  yield footerHtml(report, { ...options, adapter: settings.adapter });
}

/**
 * The subagents no line of the session names (no turn to show them in): before the turns, so a
 * live page's new turns still come last.
 */
function readingUnplaced(report: InspectReport, settings: Resolved): string {
  const unplaced = linkedSessions(report).filter((l) => l.kind === "subagent" && l.turn === null);
  if (unplaced.length === 0) return "";
  return `<section class="rturn" id="read-subagents"><p class="rhead">Subagents no line of the session names</p>${
    unplaced.map((link) => subagentHtml(link, settings, 0)).join("\n")
  }</section>\n`;
}

/** The start of the reading view: its heading, and what of the session it leaves off. */
function readingOpening(report: InspectReport, settings: Resolved): string {
  const { firstListed } = settings.plan;
  const left = firstListed === 0
    ? ""
    : `<p class="muted">The first ${
      plural(firstListed, "turn")
    } are left off this page, to keep it small enough for a browser; the text view (inspect) shows every turn.</p>`;
  const none = report.turns.length === 0
    ? `<p class="muted">${escapeText(verdictOf(report).words)}: no conversation to read.</p>`
    : "";
  return `<main id="reading" data-turns="${report.turns.length}"><h2>Conversation <span class="muted">(${
    plural(report.turns.length, "turn")
  }; <a href="#records">every line</a>)</span></h2>${left}${none}${
    readingUnplaced(report, settings)
  }\n`;
}

/**
 * The session page as one HTML document: header, findings, the two charts and every turn.
 * It needs the report's entries (`inspectSession(path, { entries: true })`) to show each
 * line; without them it shows each turn's boundary, the counts and the findings.
 */
export function renderSessionPage(report: InspectReport, options: SessionPageOptions = {}): string {
  return [...sessionPagePieces(report, options)].join("");
}

/** About how many characters {@linkcode sessionPageChunks} joins into one chunk. */
const CHUNK_CHARS = 256 * 1024;

const encoder = new TextEncoder();

/**
 * The session page as UTF-8 bytes, its pieces joined into chunks of about 256 K characters
 * (one turn's piece may be more): a few writes of large buffers, not one stream step, one
 * encoding and one write per turn (at 100 MB those cost the page about 60 ms).
 */
export function* sessionPageChunks(
  report: InspectReport,
  options: SessionPageOptions = {},
): Generator<Uint8Array> {
  let pending: string[] = [];
  let chars = 0;
  for (const piece of sessionPagePieces(report, options)) {
    pending.push(piece);
    chars += piece.length;
    if (chars < CHUNK_CHARS) continue;
    yield encoder.encode(pending.join(""));
    pending = [];
    chars = 0;
  }
  if (chars > 0) yield encoder.encode(pending.join(""));
}

/** Milliseconds of rendering after which the page lets other work (another request) run. */
const SLICE_MS = 10;

/**
 * {@linkcode sessionPageChunks}, pausing (a macrotask) whenever it has rendered for 10 ms:
 * a server that renders a heavy page goes on answering other requests meanwhile.
 */
async function* pacedChunks(
  report: InspectReport,
  options: SessionPageOptions,
): AsyncGenerator<Uint8Array> {
  let pending: string[] = [];
  let chars = 0;
  let since = performance.now();
  for (const piece of sessionPagePieces(report, options)) {
    pending.push(piece);
    chars += piece.length;
    if (chars >= CHUNK_CHARS) {
      yield encoder.encode(pending.join(""));
      pending = [];
      chars = 0;
    }
    if (performance.now() - since >= SLICE_MS) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      since = performance.now();
    }
  }
  if (chars > 0) yield encoder.encode(pending.join(""));
}

/**
 * The session page as UTF-8 bytes, chunk by chunk: a `Response` body or a file's writer. It
 * renders in slices of about 10 ms, letting the rest of the process run between them.
 */
export function sessionPageStream(
  report: InspectReport,
  options: SessionPageOptions = {},
): ReadableStream<Uint8Array> {
  return ReadableStream.from(pacedChunks(report, options));
}
