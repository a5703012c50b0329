/**
 * A session watched for the live page: its size looked at every few hundred milliseconds, and a
 * `changed` event (`{records, sizeBytes, stamp}`) whenever it grew or was rewritten. Of a file
 * only the bytes appended since the last look are read to keep the count; a database store is
 * asked for the counts it keeps.
 *
 * @module
 */
import type { SseComment, SseEvent } from "../http/mod.ts";
import type { SessionLocation, SessionStore } from "../store/mod.ts";
import { statFollowed } from "../formats/_follow.ts";
import { statKey } from "../_tick.ts";

/** Options of {@linkcode sessionChanges}. */
export interface SessionChangesOptions {
  /**
   * Milliseconds between two looks at the file's size; at most one `changed` event is sent
   * per look. @default 300
   */
  pollMs?: number | undefined;
  /** A `: ping` comment after this many milliseconds without an event. @default 20_000 */
  pingMs?: number | undefined;
  /** The `retry:` sent first: how soon a client reconnects, in milliseconds. @default 2000 */
  retryMs?: number | undefined;
  /** Ends the events (the client went away, the server is stopping). */
  signal?: AbortSignal | undefined;
}

/** The data of a `changed` event. */
export interface SessionChange {
  /** Non-empty lines of the file (a torn last line included). */
  records: number;
  /** The file's size in bytes. */
  sizeBytes: number;
  /**
   * The file's inode, size and time when it was counted (`statKey` of `src/_tick.ts`; a file's
   * events only): a page rendered before a rewrite at the same size tells it by this.
   */
  stamp?: string;
}

const NEWLINE = 10;
const CR = 13;

/** Counts non-empty lines (a line of only `\r` is empty) fed in as chunks of bytes. */
class RecordTally {
  #complete = 0;
  /** The line being read: nothing yet, only a `\r`, or text. */
  #partial: "none" | "cr" | "text" = "none";

  get records(): number {
    return this.#complete + (this.#partial === "text" ? 1 : 0);
  }

  push(bytes: Uint8Array): void {
    let start = 0;
    for (let at = bytes.indexOf(NEWLINE); at !== -1; at = bytes.indexOf(NEWLINE, start)) {
      this.#take(bytes, start, at);
      if (this.#partial === "text") this.#complete++;
      this.#partial = "none";
      start = at + 1;
    }
    this.#take(bytes, start, bytes.length);
  }

  #take(bytes: Uint8Array, from: number, to: number): void {
    if (from === to || this.#partial === "text") return;
    const onlyCr = this.#partial === "none" && to - from === 1 && bytes[from] === CR;
    this.#partial = onlyCr ? "cr" : "text";
  }
}

/** Feeds bytes `[from, to)` of the file to the tally; returns where it got to. */
async function readSpan(path: string, from: number, to: number, tally: RecordTally) {
  using file = await Deno.open(path, { read: true });
  await file.seek(from, Deno.SeekMode.Start);
  const buffer = new Uint8Array(Math.max(1, Math.min(1 << 20, to - from)));
  let at = from;
  while (at < to) {
    const read = await file.read(buffer.subarray(0, Math.min(buffer.length, to - at)));
    if (read === null) break;
    tally.push(buffer.subarray(0, read));
    at += read;
  }
  return at;
}

/** Resolves after `ms`, or at once when `signal` aborts; leaves no timer behind. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** What the file looked like at one look. */
interface Seen {
  size: number;
  mtime: number | null;
  ino: number | null;
  /** Its inode, size and time (`statKey`). */
  stamp: string;
  /**
   * Looked at in the tick of its last write, one not waited for (a file system of whole
   * seconds): the next look reads it again even when it looks the same.
   */
  racy: boolean;
  /** Its file system keeps times below the second, as a look at it knew (`fineClock`). */
  fine: boolean;
}

/** A file not there at the first look. */
const UNSEEN: Seen = { size: 0, mtime: null, ino: null, stamp: "", racy: false, fine: false };

/**
 * The file's size, time and inode; a file written in the tick of the look is waited for until
 * that tick is past (up to 50 ms), so that what is read after holds every write that keeps them.
 * `earlier` is the last look.
 */
async function look(path: string, earlier?: Seen): Promise<Seen | undefined> {
  try {
    const { info, size, mtime, racy, fine } = await statFollowed(path, earlier);
    return { size, mtime, ino: info.ino, stamp: statKey(info), racy, fine };
  } catch (error) {
    // A file being replaced (an atomic rewrite) is missing for a moment: look again later.
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

function changed(change: SessionChange, retry?: number): SseEvent {
  return { retry, event: "changed", data: JSON.stringify(change) };
}

/** One file watched for every live page on it: one look and one read per change, for all. */
interface Watched {
  /** The newest change seen. */
  latest: SessionChange;
  /** Each page's wake-up, called with every new change. */
  pages: Set<(change: SessionChange) => void>;
  /** Stops the look loop (the last page went away). */
  stop: AbortController;
  /** Spans of the file read so far (the whole file first, then each append). */
  reads: number;
  /** Resolves once the first read is done and `latest` holds it. */
  ready: Promise<void>;
}

/**
 * The watchers of a server's live pages: one per session file, however many pages are open on
 * it. Each looks at its file every `pollMs`, reads what was appended once, and hands the
 * change to every page; the last page to go away stops it. Two live pages of a growing session
 * cost one read per change, not two.
 */
export class SessionWatchers {
  readonly #pollMs: number;
  readonly #watched = new Map<string, Watched>();

  /** `pollMs`: milliseconds between two looks at a watched file. @default 300 */
  constructor(options: { pollMs?: number | undefined } = {}) {
    this.#pollMs = options.pollMs ?? 300;
  }

  /** Spans of `path` read by its watcher so far (0: not watched). */
  reads(path: string): number {
    return this.#watched.get(path)?.reads ?? 0;
  }

  /** Files watched now. */
  get size(): number {
    return this.#watched.size;
  }

  #watch(path: string): Watched {
    const existing = this.#watched.get(path);
    if (existing) return existing;
    const watched: Watched = {
      latest: { records: 0, sizeBytes: 0 },
      pages: new Set(),
      stop: new AbortController(),
      reads: 0,
      ready: Promise.resolve(),
    };
    let first!: () => void;
    watched.ready = new Promise((resolve) => first = resolve);
    this.#watched.set(path, watched);
    this.#loop(path, watched, first).catch(() => {}).finally(() => {
      first();
      if (this.#watched.get(path) === watched) this.#watched.delete(path);
    });
    return watched;
  }

  async #loop(path: string, watched: Watched, first: () => void): Promise<void> {
    const signal = watched.stop.signal;
    let tally = new RecordTally();
    let seen = await look(path) ?? UNSEEN;
    watched.reads++;
    let size = seen.size === 0 ? 0 : await readSpan(path, 0, seen.size, tally);
    watched.latest = { records: tally.records, sizeBytes: size, stamp: seen.stamp };
    first();
    while (!signal.aborted) {
      await pause(this.#pollMs, signal);
      if (signal.aborted) return;
      const now = await look(path, seen);
      if (now === undefined) continue;
      const same = now.size === seen.size && now.mtime === seen.mtime && now.ino === seen.ino;
      if (same && !seen.racy) continue;
      // Looked at in its write's tick and the same now: maybe rewritten in place, counted again;
      // written to without growing (a rewrite in place at the same size): counted again too.
      const appended = now.size > seen.size && now.size >= size && now.ino === seen.ino;
      if (!appended) tally = new RecordTally();
      watched.reads++;
      const before = watched.latest;
      size = await readSpan(path, appended ? size : 0, now.size, tally);
      seen = now;
      watched.latest = { records: tally.records, sizeBytes: size, stamp: seen.stamp };
      // Counted again for doubt alone: told only when the count moved.
      if (same && before.records === tally.records && before.sizeBytes === size) continue;
      for (const wake of watched.pages) wake(watched.latest);
    }
  }

  /**
   * A live page's events for the session file at `path`: first `retry:` with a `changed`
   * event of the file as it is now (so a page rendered a moment earlier catches up), then a
   * `changed` event whenever the file's size, inode or modification time moved (appended: only
   * the new bytes are read, once for every page; rewritten: the file is counted again; looked
   * at in the tick of its last write on a file system of seconds: counted again at the next
   * look, and told when the count moved), at
   * most one per look however many changes it saw, and a `: ping` comment when nothing was
   * sent for a while. Ends when `signal` aborts.
   */
  async *changes(
    path: string,
    options: Omit<SessionChangesOptions, "pollMs"> = {},
  ): AsyncGenerator<SseEvent | SseComment> {
    const { signal } = options;
    const pingMs = options.pingMs ?? 20_000;
    const watched = this.#watch(path);
    let pending: SessionChange | undefined;
    let wake: (() => void) | undefined;
    const page = (change: SessionChange) => {
      pending = change;
      wake?.();
    };
    watched.pages.add(page);
    try {
      await watched.ready;
      yield changed(watched.latest, options.retryMs ?? 2000);
      while (!signal?.aborted) {
        if (pending === undefined) {
          // Woken by a change or after pingMs; the pause's timer goes with the wait.
          const waited = new AbortController();
          const until = signal ? AbortSignal.any([signal, waited.signal]) : waited.signal;
          await new Promise<void>((resolve) => {
            wake = resolve;
            pause(pingMs, until).then(resolve);
          });
          waited.abort();
          wake = undefined;
        }
        if (signal?.aborted) return;
        if (pending !== undefined) {
          const change = pending;
          pending = undefined;
          yield changed(change);
        } else yield { comment: "ping" };
      }
    } finally {
      watched.pages.delete(page);
      if (watched.pages.size === 0) watched.stop.abort();
    }
  }
}

/**
 * The live page's events for the session file at `path`, watched for this page alone (see
 * {@linkcode SessionWatchers.changes}; a server shares one watcher per file among its pages).
 *
 * @example
 * ```ts ignore
 * const stream = sseResponse(sessionChanges(path, { signal: request.signal }));
 * ```
 */
export function sessionChanges(
  path: string,
  options: SessionChangesOptions = {},
): AsyncGenerator<SseEvent | SseComment> {
  return new SessionWatchers({ pollMs: options.pollMs }).changes(path, options);
}

/**
 * The live page's events for a session in any store, by asking the store its size every
 * `pollMs` (a database answers from the counts its sessions row keeps): the same events as
 * {@linkcode sessionChanges}, a `changed` event first and whenever the size moved, `: ping`
 * while nothing did. Ends when `signal` aborts.
 */
export async function* storeChanges(
  store: SessionStore,
  location: SessionLocation,
  options: SessionChangesOptions = {},
): AsyncGenerator<SseEvent | SseComment> {
  const { signal } = options;
  const pollMs = options.pollMs ?? 300;
  const pingMs = options.pingMs ?? 20_000;
  let seen = await store.size(location);
  yield changed(seen, options.retryMs ?? 2000);
  let quietSince = performance.now();
  while (true) {
    await pause(pollMs, signal);
    if (signal?.aborted) return;
    const now = await store.size(location);
    if (now.records !== seen.records || now.sizeBytes !== seen.sizeBytes) {
      seen = now;
      yield changed(now);
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= pingMs) {
      yield { comment: "ping" };
      quietSince = performance.now();
    }
  }
}
