/**
 * A seeded generator of session files for equivalence tests and timings: turns with tool
 * calls (some left without output), compaction checkpoints, and the damage a crash or an
 * editor leaves (torn tails, corrupt lines, CRLF endings, empty lines). Deterministic.
 *
 * @module
 */
import { compactHistory, makeCheckpoint } from "../src/compaction/mod.ts";
import {
  makeRecord,
  type ResponseItem,
  type ResponseItemPayload,
  responseItemRecord,
  type SessionRecord,
} from "../src/record/mod.ts";
import { replayRecord } from "../src/history/mod.ts";

/** A small seeded PRNG (mulberry32): the same seed gives the same numbers everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What to put into a generated session. */
export interface GenerateOptions {
  turns?: number;
  /** Chance that a round is followed by a checkpoint. */
  checkpointChance?: number;
  /** Allow damage: corrupt lines, torn tail, CRLF, empty lines. */
  damage?: boolean;
  /** Characters of a large tool output. */
  largeOutputChars?: number;
}

/** A generated session file and what went into it. */
export interface GeneratedSession {
  text: string;
  checkpoints: number;
  corruptLines: number;
  tornTail: boolean;
  crlf: boolean;
}

const TIME = Date.UTC(2026, 10, 30, 9, 0, 0);

/** A session file from `seed`; the same seed and options give the same bytes. */
export function generateSession(seed: number, options: GenerateOptions = {}): GeneratedSession {
  const random = seededRandom(seed);
  const pick = (chance: number) => random() < chance;
  const int = (max: number) => Math.floor(random() * max);
  const turns = options.turns ?? 1 + int(6);
  const checkpointChance = options.checkpointChance ?? 0.25;
  const damage = options.damage ?? true;
  const crlf = damage && pick(0.25);
  const mixedEndings = crlf && pick(0.5);
  const lines: string[] = [];
  let clock = 0;
  const at = () => new Date(TIME + 1000 * clock++);
  let validRecords = 0;
  const emit = (record: SessionRecord) => {
    lines.push(JSON.stringify(record));
    validRecords++;
  };
  const history: ResponseItem[] = [];
  const add = (item: ResponseItemPayload) => {
    const record = responseItemRecord(item, at());
    replayRecord(history, record);
    emit(record);
  };
  let checkpoints = 0;
  let corruptLines = 0;
  let callNumber = 0;
  const sessionId = `0199${seed.toString(16).padStart(8, "0")}`;
  emit(makeRecord("session_meta", {
    version: 1,
    id: sessionId,
    createdAt: at().toISOString(),
    cwd: "/work/project",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "ask-changes" },
  }, at()));
  for (let turn = 0; turn < turns; turn++) {
    emit(makeRecord("turn_context", {
      runId: `run-${seed}-${turn}`,
      model: pick(0.2) ? "gpt-4o" : "scripted",
      wireApi: "responses",
      policy: { approval: pick(0.3) ? "auto" : "ask-changes" },
      resumed: turn > 0,
    }, at()));
    if (turn === 0) add({ type: "message", role: "system", content: "You are careful." });
    add({ type: "message", role: "user", content: `request ${turn}: ${"words ".repeat(int(40))}` });
    const rounds = 1 + int(4);
    for (let round = 0; round < rounds; round++) {
      const calls = int(3);
      for (let c = 0; c < calls; c++) {
        const callId = `call_${seed}_${callNumber++}`;
        add({
          type: "function_call",
          callId,
          name: "read_file",
          arguments: `{"path":"f${c}.txt"}`,
        });
        // Some calls stay orphans: the run died before their output.
        if (pick(0.15)) continue;
        const large = options.largeOutputChars !== undefined && pick(0.3);
        add({
          type: "function_call_output",
          callId,
          toolName: "read_file",
          output: large ? "x".repeat(options.largeOutputChars!) : `line ${c}\n`.repeat(1 + int(5)),
          isError: pick(0.1),
        });
      }
      if (pick(0.6)) {
        add({ type: "message", role: "assistant", content: `answer ${turn}.${round}` });
      }
      if (pick(checkpointChance)) {
        const compacted = compactHistory(history, `summary ${checkpoints}`, {
          userBudgetTokens: 10 + int(40),
        });
        // Most checkpoints store the record count before them, as the runtime writes them;
        // some do not, as an older writer might, and send resume the long way.
        let payload = makeCheckpoint(compacted, {
          reason: "token_threshold",
          tokensBefore: 9000,
          ...(pick(0.8) ? { recordsBefore: validRecords } : {}),
        });
        if (pick(0.2)) {
          // A replacement that holds an orphan call: replay must take it as stored.
          payload = {
            ...payload,
            replacementHistory: [...payload.replacementHistory, {
              type: "function_call",
              callId: `kept_${seed}_${checkpoints}`,
              name: "list_dir",
              arguments: "{}",
            }],
          };
        }
        add(payload);
        checkpoints++;
      }
      if (damage && pick(0.05)) {
        lines.push('{"timestamp":"2026-11-30T09:00:00.000Z","type":"response_item","payload":{');
        corruptLines++;
      }
      if (damage && pick(0.04)) {
        // A checkpoint line cut short in the middle of the file: it must be passed over.
        const full = JSON.stringify(responseItemRecord(
          makeCheckpoint(compactHistory(history, "lost"), { reason: "x", tokensBefore: 1 }),
          at(),
        ));
        lines.push(full.slice(0, full.length - 5));
        corruptLines++;
      }
      if (damage && pick(0.03)) {
        lines.push('{"timestamp":"x","type":"turn_context","payload":{"runId":""}}');
        corruptLines++;
      }
      if (damage && pick(0.05)) lines.push("");
    }
    if (pick(0.7)) {
      emit(makeRecord("run_finished", {
        runId: `run-${seed}-${turn}`,
        outcome: "succeeded",
        rounds,
      }, at()));
    }
  }
  const ending = (index: number) => crlf && (!mixedEndings || index % 2 === 0) ? "\r\n" : "\n";
  let text = lines.map((line, index) => line + ending(index)).join("");
  let tornTail = false;
  if (damage && pick(0.25)) {
    text += '{"timestamp":"2026-11-30T09:00:00.000Z","type":"response_item","payload":{"ty';
    tornTail = true;
  } else if (damage && pick(0.1)) {
    text = text.replace(/\r?\n$/, ""); // a valid last line without its final newline
  }
  return { text, checkpoints, corruptLines, tornTail, crlf };
}
