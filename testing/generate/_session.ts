/**
 * The one seeded session generator: turns of user messages, rounds of assistant text and tool
 * calls with outputs (some large), crashes that leave orphan calls, real compaction
 * checkpoints, and on request the damage crashes, editors and older writers leave. The same
 * spec gives the same bytes on every machine.
 *
 * @module
 */
import { compactHistory, makeCheckpoint } from "../../src/compaction/mod.ts";
import {
  FORMAT_VERSION,
  type FunctionCallItem,
  makeRecord,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../../src/record/mod.ts";
import { synthesizedOutputFor } from "../../src/history/mod.ts";
import { damagedLines, fileEnd, lineEndings, olderWriterCheckpoint, TORN_TAIL } from "./_damage.ts";
import { Rng, seededUuidV7 } from "./_rng.ts";
import { type TextPool, textPool, WORDS } from "./_text.ts";

/** What a generated session should look like. */
export interface SessionSpec {
  /** Decides every byte. */
  seed: number;
  /** Turns to write; without it (and without `size`), one to six. */
  turns?: number;
  /**
   * Target size in bytes: the file ends at the first round boundary past it (and after the
   * last `"spread"` checkpoint).
   */
  size?: number;
  /**
   * Compaction checkpoints: after a round with this chance, or `"spread"` over `size` (one
   * every eighth, the last one in the last 1% of the file, as a long session gets them).
   * @default 0
   */
  checkpoints?: number | "spread";
  /**
   * What crashes, editors and older writers leave: corrupt and cut-short lines, empty lines,
   * CRLF endings, a torn tail, checkpoints without a record count or keeping an orphan call,
   * and crashes in one round in seven (else one in fifty).
   * @default false
   */
  damage?: boolean;
  /** Multiplies every text length: 1 is realistic; tests take small texts. @default 1 */
  textScale?: number;
  /** Rounds of a turn: one to this many. @default 10 */
  maxRounds?: number;
  /** Creation time, ms since the epoch. @default a time on 2026-01-15 drawn from the seed */
  createdAt?: number;
}

/** What went into a generated session. */
export interface SessionStats {
  /** The session id, a UUIDv7 of the creation time. */
  id: string;
  /** Creation time, ISO 8601. */
  createdAt: string;
  /** Bytes written. */
  bytes: number;
  /** Valid records (the damaged lines are not records). */
  records: number;
  /** Checkpoint records written. */
  checkpointCount: number;
  /** Byte offset of the last checkpoint record, or -1. */
  lastCheckpointOffset: number;
  /** `function_call`s left without an output in the file (normalization synthesizes them). */
  orphanCalls: number;
  /** Tool outputs of the largest class (40 KB and more at a text scale of 1). */
  largeOutputs: number;
  /** Lines that are not valid records (empty lines are not counted). */
  corruptLines: number;
  /** The file ends in a record cut short. */
  tornTail: boolean;
  /** The file has CRLF line endings (on every line or every other one). */
  crlf: boolean;
}

const TOOLS = ["read_file", "run_shell", "search", "write_file", "list_dir", "apply_patch"];
const BASE_TIME = Date.UTC(2026, 0, 15, 9, 30, 0);
const POLICY = { approval: "ask-changes" } as const;
const encoder = new TextEncoder();

/**
 * Writes one session, line by line: {@linkcode SessionGenerator.lines} yields each line's
 * bytes and {@linkcode SessionGenerator.stats} says what they hold.
 */
export class SessionGenerator {
  /** What went in so far; complete once `lines()` is exhausted. */
  readonly stats: SessionStats;
  readonly #spec: SessionSpec;
  readonly #rng: Rng;
  readonly #pool: TextPool = textPool();
  readonly #scale: number;
  readonly #damage: boolean;
  readonly #ending: (index: number) => string;
  readonly #turns: number | undefined;
  readonly #maxOutput: number;
  readonly #checkpointEvery: number;
  readonly #lastCheckpointAt: number;
  #nextCheckpoint: number;
  /** After the last spread checkpoint: small records only, so it stays in the last 1%. */
  #tail = false;
  #clock: number;
  #turn = 0;
  #lineIndex = 0;
  #out: Uint8Array[] = [];
  #history: ResponseItem[] = [];
  #pendingOrphans: FunctionCallItem[] = [];

  /** A generator for `spec`; nothing is generated before `lines()` is iterated. */
  constructor(spec: SessionSpec) {
    const size = spec.size ?? 0;
    this.#spec = spec;
    this.#rng = new Rng(spec.seed ^ (size >>> 0) ^ (spec.checkpoints === "spread" ? 0x5eed : 0));
    this.#scale = spec.textScale ?? 1;
    this.#damage = spec.damage ?? false;
    const endings = lineEndings(this.#rng, this.#damage);
    this.#ending = endings.ending;
    this.#turns = spec.turns ?? (spec.size === undefined ? this.#rng.int(1, 6) : undefined);
    // A small file's largest outputs stay a twentieth of it.
    this.#maxOutput = size === 0
      ? 250_000
      : Math.max(2000, Math.min(250_000, Math.floor(size / 20)));
    this.#checkpointEvery = Math.max(4096, Math.floor(size / 8));
    this.#lastCheckpointAt = Math.floor(size * 0.992);
    this.#nextCheckpoint = this.#checkpointEvery;
    this.#clock = spec.createdAt ?? BASE_TIME + this.#rng.int(0, 86_400_000);
    this.stats = {
      id: seededUuidV7(this.#rng, this.#clock),
      createdAt: new Date(this.#clock).toISOString(),
      bytes: 0,
      records: 0,
      checkpointCount: 0,
      lastCheckpointOffset: -1,
      orphanCalls: 0,
      largeOutputs: 0,
      corruptLines: 0,
      tornTail: false,
      crlf: endings.crlf,
    };
  }

  /** The file's lines, each with its line ending, turn by turn. */
  *lines(): Generator<Uint8Array> {
    this.#meta();
    do {
      this.#oneTurn();
      // All but the last line: how the file ends may still change that one.
      yield* this.#out.splice(0, this.#out.length - 1);
    } while (!this.#finished());
    this.stats.orphanCalls += this.#pendingOrphans.length;
    const end = fileEnd(this.#rng, this.#damage);
    let last = this.#out.pop()!;
    if (end === "unterminated") {
      const cut = last.at(-2) === 13 ? 2 : 1;
      last = last.subarray(0, last.length - cut);
      this.stats.bytes -= cut;
    }
    yield last;
    if (end === "torn") {
      this.stats.tornTail = true;
      this.stats.bytes += TORN_TAIL.length;
      yield encoder.encode(TORN_TAIL);
    }
  }

  #finished(): boolean {
    if (this.#turns !== undefined) return this.#turn >= this.#turns;
    return this.stats.bytes >= this.#spec.size! &&
      (this.#spec.checkpoints !== "spread" || this.#tail);
  }

  #line(text: string): void {
    const bytes = encoder.encode(text + this.#ending(this.#lineIndex++));
    this.#out.push(bytes);
    this.stats.bytes += bytes.length;
  }

  #record(record: SessionRecord): void {
    this.#line(JSON.stringify(record));
    this.stats.records++;
  }

  #item(payload: ResponseItem): void {
    this.#history.push(payload);
    this.#record(responseItemRecord(payload, this.#tick()));
  }

  #tick(): Date {
    return new Date(this.#clock += this.#rng.int(20, 4000));
  }

  /** `length` at the spec's text scale (at least 1). */
  #scaled(length: number): number {
    return Math.max(1, Math.round(length * this.#scale));
  }

  /** `min` to `max` characters at a text scale of 1. */
  #length(min: number, max: number): number {
    return this.#scaled(this.#rng.int(min, max));
  }

  #text(min: number, max: number, kind: "prose" | "code" = "prose"): string {
    return this.#pool.take(this.#rng, this.#length(min, max), kind);
  }

  #meta(): void {
    const { id, createdAt } = this.stats;
    this.#record(makeRecord("session_meta", {
      version: FORMAT_VERSION,
      id,
      createdAt,
      cwd: `/home/dev/projects/${this.#rng.pick(WORDS)}`,
      modelProvider: "openai",
      model: "gpt-5",
      wireApi: "responses",
      policy: POLICY,
    }, new Date(createdAt)));
  }

  #oneTurn(): void {
    const rng = this.#rng;
    const runId = seededUuidV7(rng, this.#clock);
    this.#record(makeRecord("turn_context", {
      runId,
      model: rng.chance(0.2) ? "gpt-4o" : "gpt-5",
      wireApi: "responses",
      policy: rng.chance(0.3) ? { approval: "auto" } : POLICY,
      resumed: this.#turn > 0,
    }, this.#tick()));
    this.#afterCrash();
    if (this.#turn === 0) {
      const content = "You are a coding agent working in a repository. " + this.#text(2500, 2500);
      this.#item({ type: "message", role: "system", content });
    }
    const long = rng.chance(0.2);
    this.#item({
      type: "message",
      role: "user",
      content: long ? this.#text(400, 3000) : this.#text(30, 400),
    });
    const rounds = rng.int(1, this.#spec.maxRounds ?? 10);
    let outcome: "next" | "last" | "crashed" = "next";
    for (let round = 0; round < rounds && outcome === "next"; round++) outcome = this.#round();
    if (outcome !== "crashed") {
      this.#item({ type: "message", role: "assistant", content: this.#text(40, 600) });
      this.#record(makeRecord("run_finished", {
        runId,
        outcome: "succeeded",
        rounds,
        usage: {
          inputTokens: rng.int(1000, 90_000),
          outputTokens: rng.int(50, 4000),
          totalTokens: 0,
        },
      }, this.#tick()));
    }
    this.#turn++;
  }

  /**
   * A resume after a crash appends synthesized outputs half of the time; the other orphans
   * stay in the file, as an older writer would have left them.
   */
  #afterCrash(): void {
    if (this.#pendingOrphans.length > 0 && this.#rng.chance(0.5)) {
      for (const orphan of this.#pendingOrphans) this.#item(synthesizedOutputFor(orphan));
    } else {
      this.stats.orphanCalls += this.#pendingOrphans.length;
    }
    this.#pendingOrphans = [];
  }

  /** One model round: text, calls, their outputs, then a checkpoint or damage by chance. */
  #round(): "next" | "last" | "crashed" {
    const rng = this.#rng;
    this.#spreadCheckpoint();
    if (rng.chance(0.6)) {
      const content = this.#tail ? this.#text(40, 200) : this.#text(60, 1500);
      this.#item({ type: "message", role: "assistant", content });
    }
    const calls = this.#calls();
    const last = this.#spec.size !== undefined && this.stats.bytes >= this.#spec.size;
    // A crash: the calls never get their outputs and the run never finishes.
    const crashChance = this.#damage ? 0.15 : 0.02;
    if ((rng.chance(crashChance) && !this.#tail) || (last && rng.chance(0.5))) {
      this.#pendingOrphans = calls;
      return "crashed";
    }
    for (const call of calls) this.#output(call);
    const chance = this.#spec.checkpoints;
    if (typeof chance === "number" && rng.chance(chance)) this.#checkpoint();
    if (this.#damage) {
      const damaged = damagedLines(rng, this.#history, this.#tick());
      for (const line of damaged.lines) this.#line(line);
      this.stats.corruptLines += damaged.corrupt;
    }
    return last ? "last" : "next";
  }

  #calls(): FunctionCallItem[] {
    const rng = this.#rng;
    const calls: FunctionCallItem[] = [];
    for (let c = rng.int(1, 3); c > 0; c--) {
      const name = rng.pick(TOOLS);
      const args = JSON.stringify({
        path: `src/${rng.pick(WORDS)}/${rng.pick(WORDS)}.ts`,
        ...(name === "run_shell" ? { command: this.#text(10, 120, "code") } : {}),
        ...(name === "write_file" ? { content: this.#text(100, 3000, "code") } : {}),
      });
      const call: FunctionCallItem = {
        type: "function_call",
        callId: `call_${rng.hex(24)}`,
        name,
        arguments: args,
      };
      calls.push(call);
      this.#item(call);
    }
    return calls;
  }

  /** A call's output: mostly small, some of 8-40 KB, one in a hundred of 40-250 KB. */
  #output(call: FunctionCallItem): void {
    const rng = this.#rng;
    const roll = rng.next();
    const length = this.#tail
      ? rng.int(50, 600)
      : roll < 0.7
      ? rng.int(100, 1200)
      : roll < 0.94
      ? rng.int(1200, 8000)
      : roll < 0.99
      ? rng.int(8000, 40_000)
      : rng.int(Math.min(40_000, this.#maxOutput), this.#maxOutput);
    if (length >= 40_000) this.stats.largeOutputs++;
    const kind = call.name === "read_file" ? "code" : "prose";
    this.#item({
      type: "function_call_output",
      callId: call.callId,
      toolName: call.name,
      output: this.#pool.take(rng, this.#scaled(length), kind),
      isError: rng.chance(0.05),
    });
  }

  /** Checkpoints every eighth of the file, and a last one once 99.2% is written. */
  #spreadCheckpoint(): void {
    if (this.#spec.checkpoints !== "spread" || this.#tail) return;
    if (this.stats.bytes >= this.#lastCheckpointAt) {
      this.#checkpoint();
      this.#tail = true;
    } else if (this.stats.bytes >= this.#nextCheckpoint) {
      this.#checkpoint();
      this.#nextCheckpoint += this.#checkpointEvery;
    }
  }

  /** A checkpoint exactly as the runtime writes one: the real transform, the real payload. */
  #checkpoint(): void {
    const rng = this.#rng;
    const compacted = compactHistory(this.#history, this.#text(1500, 4000), {
      userBudgetTokens: this.#length(200, 10_000),
    });
    let payload = makeCheckpoint(compacted, {
      reason: "token_threshold",
      tokensBefore: Math.floor(this.stats.bytes / 4),
      recordsBefore: this.stats.records,
    });
    if (this.#damage) payload = olderWriterCheckpoint(rng, payload, `kept_${rng.hex(12)}`);
    this.stats.lastCheckpointOffset = this.stats.bytes;
    this.#record(responseItemRecord(payload, this.#tick()));
    this.#history = [...payload.replacementHistory];
    this.stats.checkpointCount++;
  }
}
