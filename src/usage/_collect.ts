/**
 * Every model response of the chosen places (turnlog's store, the other tools' homes, folders),
 * read from the session files by each format's `usage`, counted once as the tools count them,
 * and priced: the tool's own cost where it wrote one, else the offline price table.
 *
 * @module
 */
import {
  adapterOfData,
  type FileUsage,
  type SessionFormat,
  type ToolCost,
  type UsageEvent,
} from "../formats/mod.ts";
import { type SearchSource, searchSources, sessionsOf, type SourceChoice } from "../search/mod.ts";
import { applyToolCost, loadPriceBook } from "./_cost.ts";
import { errorMessage } from "../errors/mod.ts";

/** Where a response's cost came from. */
export type CostSource = "tool" | "table";

/** One model response, with its session and its cost. */
export interface UsageRow extends UsageEvent {
  /** The session file's format (`claude-code`). */
  format: SessionFormat;
  /** The session's id. */
  sessionId: string;
  /** The session's own file (a subagent's response counts with its session). */
  sessionPath: string;
  /** The session's working directory, or null when its files do not say. */
  project: string | null;
  /** The cost in US dollars, or null when no price is known for the model. */
  cost: number | null;
  /** Where the cost came from: the tool's own figure, or the price table. */
  costSource: CostSource | null;
}

/** A file that could not be read, or lines that were not JSON. */
export interface UsageSkip {
  /** The file. */
  path: string;
  /** Why. */
  reason: string;
}

/** Every response of the places, and what was skipped. */
export interface CollectedUsage {
  /**
   * The responses, each once, in the order of their sessions' paths and then their files; or,
   * folded, their sums per session, model, cost source and 15 minutes (UTC), each with its
   * latest response's time (every time zone's day starts on a 15-minute boundary, so a sum
   * falls on one local day whatever `TZ` is). A report of either is the same.
   */
  rows: UsageRow[];
  /** Files or lines skipped. */
  skipped: UsageSkip[];
  /** Sessions read. */
  sessions: number;
  /** Sessions whose cost is the tool's own (Claude Code's `cost-state`), by where it was read. */
  toolCosts: string[];
  /** What those figures are, each once (`Claude Code's cost-state`). */
  toolCostSources: string[];
}

/** Options of {@linkcode collectUsage}. */
export interface CollectUsageOptions extends SourceChoice, CountUsageOptions {
  /** The places, already chosen (instead of `homes`, `sessionsDirs`, `store`). */
  sources?: readonly SearchSource[];
}

/** Options of {@linkcode countUsage}. */
export interface CountUsageOptions {
  /**
   * Fold the responses into their sums per session, model, cost source and 15 minutes as they
   * are counted (what a report needs; a home's million responses are never held). @default {false}
   */
  fold?: boolean;
}

/** A folded row covers this much time: every time zone's day starts on its boundary. */
const FOLD_MS = 15 * 60_000;

/** Responses summed per session, model, cost source and 15 minutes, in the order first met. */
class Folded {
  readonly #sums = new Map<string, UsageRow>();

  add(row: UsageRow): void {
    const at = Date.parse(row.time);
    const key = [
      row.sessionPath,
      row.sessionId,
      row.project ?? "\u0001",
      row.format,
      row.model ?? "\u0001",
      row.costSource ?? "\u0001",
      Number.isNaN(at) ? row.time : Math.floor(at / FOLD_MS),
    ].join("\u0000");
    const sum = this.#sums.get(key);
    if (sum === undefined) {
      this.#sums.set(key, {
        time: row.time,
        model: row.model,
        input: row.input,
        output: row.output,
        cacheRead: row.cacheRead,
        cacheCreation: row.cacheCreation,
        reasoningOutput: row.reasoningOutput,
        format: row.format,
        sessionId: row.sessionId,
        sessionPath: row.sessionPath,
        project: row.project,
        cost: row.cost,
        costSource: row.costSource,
      });
      return;
    }
    sum.input += row.input;
    sum.output += row.output;
    sum.cacheRead += row.cacheRead;
    sum.cacheCreation += row.cacheCreation;
    sum.reasoningOutput += row.reasoningOutput;
    // A cost source of null is a cost of null: the rows of one sum are all priced or none is.
    if (row.cost !== null) sum.cost = (sum.cost ?? 0) + row.cost;
    if (row.time > sum.time) sum.time = row.time;
  }

  rows(): UsageRow[] {
    return [...this.#sums.values()];
  }
}

/**
 * Counts once what the tools count once: a Claude Code response written over several lines (or
 * replayed by a resumed session, or by a side chain under a new request id) keeps the copy with
 * the most tokens, as ccusage does; other events each count.
 */
class Once {
  readonly #byKey = new Map<string, UsageRow>();
  readonly #byMessage = new Map<string, UsageRow>();

  /** The row the event is a copy of, or undefined for a new one. */
  copyOf(event: UsageEvent): UsageRow | undefined {
    if (event.key === undefined) return undefined;
    const exact = this.#byKey.get(event.key);
    if (exact !== undefined || event.messageId === undefined) return exact;
    const earlier = this.#byMessage.get(event.messageId);
    return earlier !== undefined && (event.sidechain === true || earlier.sidechain === true)
      ? earlier
      : undefined;
  }

  see(row: UsageRow): void {
    if (row.key !== undefined) this.#byKey.set(row.key, row);
    if (row.messageId !== undefined) this.#byMessage.set(row.messageId, row);
  }
}

const tokensOf = (t: UsageEvent): number => t.input + t.output + t.cacheRead + t.cacheCreation;

/** A copy replaces the one kept when it is the main chain's, or holds more tokens. */
function better(copy: UsageEvent, kept: UsageEvent): boolean {
  if ((copy.sidechain === true) !== (kept.sidechain === true)) return kept.sidechain === true;
  return tokensOf(copy) > tokensOf(kept);
}

/** A session to count: its id, its files (its own first), where it came from. */
export interface UsageSession {
  /** The session id. */
  id: string;
  /** Its own file. */
  path: string;
  /** Its subagents' files. */
  subagents: readonly string[];
  /** The format of its files. */
  format: SessionFormat;
  /** The project folder its tool filed it under, else null. */
  project: string | null;
}

/** A file's usage with each event's table price (null: no price), as a reader gives it. */
export interface PricedFile {
  /** The file's usage. */
  usage: FileUsage;
  /** The price table's cost of each event, in order. */
  costs: (number | null)[];
}

/**
 * Reads a file's usage with its events priced: from the file, or from a catalog's rows. Each
 * call gives new event objects, which the count makes its rows.
 */
export type FileReader = (path: string, format: SessionFormat) => Promise<PricedFile>;

/** Prices a file's responses (each a table price, or null: no price). */
export type FilePricer = (
  events: readonly UsageEvent[],
  provider: string | null,
) => Promise<(number | null)[]>;

/**
 * The reader of the files themselves: each format's `usage`, priced by `prices` (default: the
 * price table, loaded now).
 */
export async function fileReader(prices?: FilePricer): Promise<FileReader> {
  const pricer = prices ?? await tablePricer();
  return async (path, format) => {
    const usage = await fileUsage(path, format);
    return { usage, costs: await pricer(usage.events, usage.provider) };
  };
}

/** A session file's usage, read by its format's `usage`. */
export function fileUsage(path: string, format: SessionFormat): Promise<FileUsage> {
  return adapterOfData({ format }).usage(path);
}

/** The sessions of the sources, in the order their responses are counted (by path). */
export async function usageSessions(sources: readonly SearchSource[]): Promise<UsageSession[]> {
  const found = await sessionsOf(sources);
  return found.map((session) => ({
    id: session.id,
    path: session.path,
    subagents: [...session.subagents].sort(),
    format: session.source.format,
    project: session.project,
  })).sort((a, b) => a.path.localeCompare(b.path));
}

/** The sources kept in files: not a database store (`postgres://`), read by `storedSessions`. */
export function fileSources(sources: readonly SearchSource[]): SearchSource[] {
  return sources.filter((source) => !source.root.includes("://"));
}

/** The sessions of the database stores among the sources, and how each is read. */
export interface StoredSessions {
  /** The sessions, each store's newest first. */
  sessions: UsageSession[];
  /** Each session's usage by its path: its records as the lines of its file, read. */
  usage: Map<string, () => Promise<FileUsage>>;
  /** Closes the stores opened. */
  close(): Promise<void>;
}

const encoder = new TextEncoder();

/**
 * The sessions of the database stores among the sources (`postgres://`): each session's records,
 * in append order, are the lines of its file (a database keeps whole records), so its format's
 * reader reads them from a temporary file of its own. A store that cannot be listed is skipped
 * with its reason.
 */
export async function storedSessions(
  sources: readonly SearchSource[],
  skipped: UsageSkip[],
): Promise<StoredSessions> {
  const sessions: UsageSession[] = [];
  const usage = new Map<string, () => Promise<FileUsage>>();
  const opened: { close(): Promise<void> | void }[] = [];
  for (const source of sources) {
    if (!source.root.includes("://")) continue;
    const { openStore, storeName } = await import("../store/mod.ts");
    let listed;
    let store;
    try {
      store = source.store ?? await openStore(source.root);
      if (source.store === undefined) opened.push(store);
      listed = (await store.list({ limit: Number.MAX_SAFE_INTEGER })).sessions;
    } catch (error) {
      const name = storeName(source.root);
      skipped.push({ path: name, reason: `${errorMessage(error).replace(` at ${name}`, "")}` });
      continue;
    }
    const kept = store;
    for (const session of listed) {
      sessions.push({
        id: session.id,
        path: session.path,
        subagents: [],
        format: source.format,
        project: null,
      });
      usage.set(session.path, async () => {
        const temp = await Deno.makeTempFile({ prefix: "turnlog-usage-", suffix: ".jsonl" });
        try {
          {
            using file = await Deno.open(temp, { write: true });
            const location = { id: session.id, path: session.path, createdAt: session.created };
            for await (const entry of kept.read(location)) {
              const bytes = encoder.encode(`${entry.text}\n`);
              for (let written = 0; written < bytes.length;) {
                written += await file.write(bytes.subarray(written));
              }
            }
          }
          return await adapterOfData({ format: source.format }).usage(temp);
        } finally {
          await Deno.remove(temp);
        }
      });
    }
  }
  return {
    sessions,
    usage,
    close: async () => {
      for (const store of opened) await store.close();
    },
  };
}

/** A reader of the stored sessions' usage, else of files by `read`, priced by `prices`. */
export function withStored(
  stored: StoredSessions,
  read: FileReader,
  prices: FilePricer,
): FileReader {
  return async (path, format) => {
    const usageOf = stored.usage.get(path);
    if (usageOf === undefined) return await read(path, format);
    const usage = await usageOf();
    return { usage, costs: await prices(usage.events, usage.provider) };
  };
}

/** The price table's pricer, the table loaded now. */
export async function tablePricer(): Promise<FilePricer> {
  const book = await loadPriceBook();
  return (events, provider) =>
    Promise.resolve(events.map((event) => book.price(event, event.model, provider, event.time)));
}

/**
 * Every model response of the places a choice names (nothing named: turnlog's store and every
 * tool's home), read from the files, counted once and priced.
 *
 * @throws {NoSuchSourceError} for a named folder that is not there
 */
export async function collectUsage(options: CollectUsageOptions = {}): Promise<CollectedUsage> {
  const sources = options.sources ?? await searchSources(options);
  const skipped: UsageSkip[] = [];
  const sessions = await usageSessions(fileSources(sources));
  const stored = await storedSessions(sources, skipped);
  try {
    const prices = await tablePricer();
    const read = withStored(stored, await fileReader(prices), prices);
    return await countUsage([...sessions, ...stored.sessions], read, skipped, {
      fold: options.fold ?? false,
    });
  } finally {
    await stored.close();
  }
}

/**
 * The responses of the sessions, each file read by `read`, counted once across them (in the
 * sessions' order) and costed (the tool's own figure where a session's file keeps one); folded
 * when asked.
 */
export async function countUsage(
  sessions: readonly UsageSession[],
  read: FileReader,
  skipped: UsageSkip[] = [],
  options: CountUsageOptions = {},
): Promise<CollectedUsage> {
  const once = new Once();
  const rows: UsageRow[] = [];
  const folded = options.fold ? new Folded() : undefined;
  const toolCosts: string[] = [];
  const toolCostSources = new Set<string>();
  for (const session of sessions) {
    const mine: UsageRow[] = [];
    let toolCost: ToolCost | null = null;
    let project: string | null = session.project;
    for (const path of [session.path, ...session.subagents]) {
      let file: PricedFile;
      try {
        file = await read(path, session.format);
      } catch (error) {
        skipped.push({ path, reason: (error as Error).message });
        continue;
      }
      const { usage, costs } = file;
      if (usage.badLines > 0) {
        skipped.push({ path, reason: `${usage.badLines} line(s) with usage that are not JSON` });
      }
      if (path === session.path) {
        toolCost = usage.toolCost;
        project = usage.cwd ?? project;
      }
      usage.events.forEach((event, i) => {
        const cost = costs[i] ?? null;
        // The reader's event is made for this count alone: it becomes the row (a copy per
        // response is what a home of a million responses would hold twice).
        const row = Object.assign(event, {
          format: session.format,
          sessionId: session.id,
          sessionPath: session.path,
          project: null,
          cost,
          costSource: cost === null ? null : "table",
        }) as UsageRow;
        const kept = once.copyOf(event);
        if (kept === undefined) {
          once.see(row);
          mine.push(row);
        } else if (better(event, kept)) {
          // The kept row is replaced in place: its session keeps it, with this copy's tokens.
          kept.time = row.time;
          kept.model = row.model;
          kept.input = row.input;
          kept.output = row.output;
          kept.cacheRead = row.cacheRead;
          kept.cacheCreation = row.cacheCreation;
          kept.reasoningOutput = row.reasoningOutput;
          if (row.sidechain === true) kept.sidechain = true;
          else delete kept.sidechain;
          kept.cost = row.cost;
          kept.costSource = row.costSource;
          once.see(kept);
        }
      });
    }
    for (const row of mine) row.project = project;
    if (toolCost !== null && applyToolCost(mine, toolCost)) {
      toolCosts.push(toolCost.where);
      toolCostSources.add(toolCost.source);
    }
    if (folded === undefined) rows.push(...mine);
    else {
      // A response another file may repeat can still change (its copy with more tokens): it
      // is folded once every session is counted; the others now.
      for (const row of mine) {
        if (row.key === undefined && row.messageId === undefined) folded.add(row);
        else rows.push(row);
      }
    }
  }
  if (folded !== undefined) {
    for (const row of rows) folded.add(row);
  }
  return {
    rows: folded === undefined ? rows : folded.rows(),
    skipped,
    sessions: sessions.length,
    toolCosts,
    toolCostSources: [...toolCostSources],
  };
}
