/**
 * A Codex rollout followed as Codex writes it: its reader (and its check) fed the appended lines
 * only, and never ended; what ending it would add (the held entries of the open turn, the
 * check's verdict on the calls still waiting) is worked out on copies. A fork's rollout, whose
 * history is read from another rollout first, is read whole on each change.
 *
 * @module
 */
import { forEachLine, type Line } from "../../io/mod.ts";
import {
  type FollowedStat,
  type FollowSink,
  type FollowUpdate,
  type FormatFollower,
  notAppended,
  statFollowed,
  tailBefore,
} from "../_follow.ts";
import { parseJsonLine, problemEntry, spanOf } from "../_line.ts";
import type { ForeignEntry, LineSpan } from "../_types.ts";
import { CodexChecker, codexFindings } from "./_check.ts";
import { noteCodexFields } from "./_fields.ts";
import { codexFacts, CodexRead, readCodexRollout } from "./_reader.ts";

/** What a follower holds of its rollout. */
interface State {
  read: CodexRead;
  checker: CodexChecker;
  /** The last line read. */
  last: LineSpan | undefined;
  /** Byte offset past the last whole line read, and the number of the next line. */
  end: number;
  nextLine: number;
  /** The file's last bytes before `end`, as read, and its inode. */
  tail: Uint8Array;
  ino: number | null;
  /** The file's `stat` at the last update (see `notAppended`). */
  stat: Omit<FollowedStat, "info">;
  /** The rollout is a fork's: its history is in another rollout, read whole each time. */
  fork: boolean;
}

/**
 * A Codex rollout followed as it grows (see the module and `FormatFollower`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { CodexFollower } from "./_follow.ts";
 * const dir = await Deno.makeTempDir();
 * const path = `${dir}/rollout-2026-02-23T12-00-00-5b1e0c4e-0000-4000-8000-000000000001.jsonl`;
 * await Deno.writeTextFile(path, "");
 * const update = await new CodexFollower(path).update({ restart() {}, settle() {} });
 * assert.equal(update.facts.state, "empty");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export class CodexFollower implements FormatFollower {
  /** The rollout's path. */
  readonly path: string;
  #state: State | undefined;

  /** A follower of the rollout at `path`; nothing is read until the first update. */
  constructor(path: string) {
    this.path = path;
  }

  /** Reads what was appended since the last update (see `FormatFollower.update`). */
  async update(sink: FollowSink): Promise<FollowUpdate> {
    const { path } = this;
    // A file written in the tick of its `stat` is read once that tick is past (src/_tick.ts).
    let state = this.#state;
    const stat = await statFollowed(path, state && { ino: state.ino, fine: state.stat.fine });
    const { info } = stat;
    let bytes = 0;
    let why: string | undefined;
    if (state !== undefined && !state.fork) {
      why = await notAppended(path, stat, state);
      bytes += state.tail.length;
      if (why !== undefined) state = undefined;
    }
    if (state?.fork) return await this.#whole(sink, state, info.size);
    const whole = state === undefined;
    if (state === undefined) sink.restart();
    state ??= {
      read: new CodexRead(path),
      checker: new CodexChecker(),
      last: undefined,
      end: 0,
      nextLine: 1,
      tail: new Uint8Array(0),
      ino: null,
      stat: { size: 0, mtime: null, racy: false, fine: false },
      fork: false,
    };
    this.#state = undefined;
    const from = state.end;
    const taking = state;
    await forEachLine(path, (line: Line) => {
      // A torn last line is being written: it waits for its newline.
      if (!line.terminated) return false;
      taking.end = line.end;
      taking.nextLine = line.line + 1;
      if (line.text.length === 0) return true;
      const { read } = taking;
      const k = read.lines++;
      const span = spanOf(line);
      taking.last = span;
      const parsed = parseJsonLine(path, line);
      if ("problem" in parsed) {
        read.problems++;
        read.turns.note(problemEntry(parsed.problem));
        return true;
      }
      read.line(parsed.value, span);
      noteCodexFields(read.fields, parsed.value, span.line);
      taking.checker.line(parsed.value, k, line);
      if (read.pendingBase !== undefined) {
        taking.fork = true;
        return false;
      }
      if (read.turns.out.length > 0) sink.settle(read.turns.out.splice(0));
      return true;
    }, { start: from, firstLine: state.nextLine });
    bytes += state.end - from;
    if (state.fork) {
      this.#state = state;
      return await this.#whole(sink, state, info.size);
    }
    state.tail = await tailBefore(path, state.end);
    bytes += state.tail.length;
    state.ino = info.ino;
    state.stat = { size: stat.size, mtime: stat.mtime, racy: stat.racy, fine: stat.fine };
    this.#state = state;
    const { read, checker } = state;
    // The end of the rollout, made on copies: the reader goes on from here next time.
    const turns = read.turns.clone();
    turns.end(state.last);
    const pending: ForeignEntry[] = turns.out;
    const facts = { ...codexFacts(read, state.end), turns: turns.turns };
    const checked = read.problems > 0
      ? {}
      : { checked: codexFindings(path, checker.clone().finish()) };
    return {
      pending,
      facts: structuredClone({ ...facts, ...checked }),
      whole,
      bytes,
      ...(why === undefined ? {} : { why }),
    };
  }

  /** A fork's rollout read whole: its entries settled again from the first. */
  async #whole(sink: FollowSink, state: State, size: number): Promise<FollowUpdate> {
    sink.restart();
    const reader = readCodexRollout(this.path, size);
    while (true) {
      const step = await reader.next();
      if (step.done) {
        state.end = size;
        return { pending: [], facts: { ...step.value, sizeBytes: size }, whole: true, bytes: size };
      }
      sink.settle(Array.isArray(step.value) ? step.value : [step.value]);
    }
  }
}
