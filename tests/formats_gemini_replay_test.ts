import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readGeminiSession } from "../src/formats/gemini/mod.ts";
import type { ForeignEntry } from "../src/formats/mod.ts";

/** A small seeded generator (the same lines for a seed). */
function rng(seed: number): (max: number) => number {
  let state = seed >>> 0;
  return (max) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % max;
  };
}

type Line = Record<string, unknown>;

/** Random session lines: copies of a few messages, checkpoints, rewinds, metadata `$set`s. */
function sessionLines(seed: number, count: number): Line[] {
  const int = rng(seed);
  const ids = ["a", "b", "c", "d", "e", "f"];
  let copy = 0;
  const message = (): Line => {
    const id = ids[int(ids.length)]!;
    const text = `${id} copy ${++copy}`;
    // Gemini writes a user text either way: a string, or a list of parts.
    const content = int(2) === 0 ? text : [{ text }];
    return { id, timestamp: "2026-12-01T10:00:02.000Z", type: "user", content };
  };
  const lines: Line[] = [{
    sessionId: "s1",
    projectHash: "ab",
    startTime: "2026-12-01T10:00:01.000Z",
    lastUpdated: "2026-12-01T10:00:01.000Z",
    kind: "main",
  }];
  for (let at = 0; at < count; at++) {
    const roll = int(20);
    if (roll < 13) lines.push(message());
    else if (roll < 15) lines.push({ $set: { messages: Array.from({ length: int(4) }, message) } });
    else if (roll < 17) lines.push({ $rewindTo: int(4) === 0 ? "gone" : ids[int(ids.length)]! });
    else lines.push({ $set: { lastUpdated: "2026-12-01T10:00:03.000Z" } });
  }
  return lines;
}

/**
 * Gemini's replay written out plainly: the last copy of a message wins, in the order of first
 * appearance; a checkpoint replaces the history; a rewind drops from the message it names.
 * What a reader hands on: each message's text, after every copy that left the history before
 * it (by the order their messages came), as `text` and `line:why`.
 */
function replayed(lines: Line[]): string[] {
  let seq = 0;
  const history = new Map<string, { text: string; line: number; seq: number }>();
  const out: { seq: number; last: boolean; shown: string }[] = [];
  const drop = (id: string, why: string) => {
    const had = history.get(id)!;
    history.delete(id);
    out.push({ seq: had.seq, last: false, shown: `${had.line}:${why}` });
  };
  const message = (value: Line, line: number) => {
    const id = value.id as string;
    const text = typeof value.content === "string"
      ? value.content
      : (value.content as { text: string }[])[0]!.text;
    const had = history.get(id);
    if (had) {
      out.push({ seq: had.seq, last: false, shown: `${had.line}:superseded copy` });
      history.set(id, { text, line, seq: had.seq });
    } else history.set(id, { text, line, seq: seq++ });
  };
  lines.forEach((value, at) => {
    const line = at + 1;
    const set = value.$set as { messages?: Line[] } | undefined;
    if (typeof value.id === "string") message(value, line);
    else if (set?.messages) {
      for (const id of [...history.keys()]) drop(id, "replaced by a checkpoint");
      for (const held of set.messages) message(held, line);
    } else if (typeof value.$rewindTo === "string") {
      const ids = [...history.keys()];
      const from = ids.indexOf(value.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) drop(id, "rewound");
    }
  });
  for (const { text, seq } of history.values()) out.push({ seq, last: true, shown: text });
  // Stable: the copies of one message in the order they left, then the message.
  return out.sort((a, b) => a.seq - b.seq || Number(a.last) - Number(b.last))
    .map((entry) => entry.shown);
}

/** What a reader handed on, as `replayed` shows it. */
function shown(entries: ForeignEntry[]): string[] {
  return entries.flatMap((entry) => {
    if (entry.ignored !== undefined) return [`${entry.line}:${entry.ignored}`];
    const record = entry.record;
    if (record?.type !== "response_item" || record.payload.type !== "message") return [];
    return [String(record.payload.content)];
  });
}

/** Writes `lines` at `path` and reads them back: the entries handed on and the facts. */
async function written(path: string, lines: Line[]) {
  const text = lines.map((line) => JSON.stringify(line) + "\n").join("");
  await Deno.writeTextFile(path, text);
  const entries: ForeignEntry[] = [];
  const read = readGeminiSession(path, new TextEncoder().encode(text).length, {
    subagents: false,
  });
  let next = await read.next();
  for (; !next.done; next = await read.next()) entries.push(next.value);
  return { entries, facts: next.value };
}

Deno.test("readGeminiSession() replays copies, checkpoints and rewinds as Gemini does, on random sessions", async () => {
  await using dir = await tempDir();
  for (let seed = 1; seed <= 150; seed++) {
    const lines = sessionLines(seed, 5 + (seed % 40));
    const { entries, facts } = await written(join(dir.path, `session-${seed}.jsonl`), lines);
    const wanted = replayed(lines);
    assertEquals(shown(entries), wanted, `seed ${seed}`);
    const left = (why: string) => wanted.filter((item) => item.endsWith(`:${why}`)).length;
    assertEquals(facts.formatFacts, {
      supersededCopies: left("superseded copy"),
      checkpoints: lines.filter((line) => Array.isArray((line.$set as Line)?.messages)).length,
      replacedByCheckpoint: left("replaced by a checkpoint"),
      rewound: left("rewound"),
      parentSessionId: null,
      legacy: false,
    }, `seed ${seed}`);
  }
});

Deno.test("readGeminiSession() hands on over 65,536 copies that left the history (more than a page of them), in order, as a plain replay does", async () => {
  await using dir = await tempDir();
  const int = rng(7);
  const message = (id: string, text: string): Line => ({
    id,
    timestamp: "2026-12-01T10:00:02.000Z",
    type: "user",
    content: text,
  });
  const lines: Line[] = [{ sessionId: "s1", projectHash: "ab", kind: "main" }];
  // Each checkpoint holds the whole history again (as each resume writes one), and between
  // two of them some messages are copied again on lines of their own.
  for (let round = 0; round < 60; round++) {
    const held = Array.from({ length: 1200 }, (_, at) => message(`m${at}`, `${round}.${at}`));
    lines.push({ $set: { messages: held } });
    for (let copy = 0; copy < 20; copy++) {
      const at = int(1300);
      lines.push(message(`m${at}`, `${round}.${at} again ${copy}`));
    }
    if (round % 15 === 14) lines.push({ $rewindTo: `m${int(1200)}` });
  }
  const path = join(dir.path, "session-2026-12-01T10-00-bbbbbbbb.jsonl");
  const { entries } = await written(path, lines);
  const wanted = replayed(lines);
  assertEquals(wanted.filter((item) => item.includes(":")).length > 70_000, true);
  assertEquals(shown(entries), wanted);
});

Deno.test("readGeminiSession() merges the metadata line and every $set, the last value of a field winning, a __proto__ field as a field", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "session-2026-12-01T10-00-aaaaaaaa.jsonl");
  const lines = [
    '{"sessionId":"s1","projectHash":"ab","lastUpdated":"2026-12-01T10:00:01.000Z","kind":"main"}',
    '{"id":"a","timestamp":"2026-12-01T10:00:02.000Z","type":"user","content":"hello"}',
    '{"$set":{"summary":"first","lastUpdated":"2026-12-01T10:00:03.000Z"}}',
    // Were it taken as the metadata's prototype, its startTime would be the session's.
    '{"$set":{"__proto__":{"startTime":"2020-01-01T00:00:00.000Z"},"summary":"second"}}',
    '{"$set":{"messages":[],"lastUpdated":"2026-12-01T10:00:04.000Z"}}',
  ];
  const text = lines.join("\n") + "\n";
  await Deno.writeTextFile(path, text);
  const read = readGeminiSession(path, new TextEncoder().encode(text).length, { subagents: false });
  let next = await read.next();
  while (!next.done) next = await read.next();
  const facts = next.value;
  // No startTime: the session was created at its first line's time.
  assertEquals(
    [facts.sessionId, facts.title, facts.created, facts.updated],
    ["s1", "second", "2026-12-01T10:00:02.000Z", "2026-12-01T10:00:04.000Z"],
  );
});
