/**
 * Where a generated session goes: into memory as text (what tests replay by the hundred) or
 * into a store's file, streamed, so a gigabyte never sits in memory.
 *
 * @module
 */
import { dirname } from "node:path";
import { sessionFilePath } from "../../src/store/mod.ts";
import { SessionGenerator, type SessionSpec, type SessionStats } from "./_session.ts";

/** A session generated into memory. */
export interface GeneratedSessionText extends SessionStats {
  /** The file's content. */
  text: string;
}

/** A session generated into a store. */
export interface GeneratedSessionFile extends SessionStats {
  /** The session file. */
  path: string;
  /** The sessions root it lives under, so it can be found by id. */
  root: string;
}

/**
 * A small session in memory, by default damaged the way crashes, editors and older writers
 * leave files: one to six turns of one to three rounds, small texts, a checkpoint after a round
 * in four.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { generateSessionText } from "./mod.ts";
 * assert.equal(generateSessionText(3).text, generateSessionText(3).text);
 * ```
 */
export function generateSessionText(
  seed: number,
  options: Omit<SessionSpec, "seed"> = {},
): GeneratedSessionText {
  const generator = new SessionGenerator({
    damage: true,
    textScale: 0.02,
    maxRounds: 3,
    checkpoints: 0.25,
    ...options,
    seed,
  });
  const lines = [...generator.lines()];
  const bytes = new Uint8Array(generator.stats.bytes);
  let at = 0;
  for (const line of lines) {
    bytes.set(line, at);
    at += line.length;
  }
  return { ...generator.stats, text: new TextDecoder().decode(bytes) };
}

/** Writes JSONL through a buffer: a few large writes instead of one per line. */
async function writeLines(path: string, lines: Iterable<Uint8Array>): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  let parts: Uint8Array[] = [];
  let pending = 0;
  const flush = async () => {
    for (const part of parts) {
      let written = 0;
      while (written < part.length) written += await file.write(part.subarray(written));
    }
    parts = [];
    pending = 0;
  };
  for (const line of lines) {
    parts.push(line);
    pending += line.length;
    if (pending >= 4 << 20) await flush();
  }
  await flush();
}

/**
 * Generates a session into the store at `root`, named the way `createSession` names it
 * (overwriting a file of the same name).
 */
export async function writeSession(root: string, spec: SessionSpec): Promise<GeneratedSessionFile> {
  const generator = new SessionGenerator(spec);
  const { id, createdAt } = generator.stats;
  const path = sessionFilePath(root, id, new Date(createdAt));
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeLines(path, generator.lines());
  return { ...generator.stats, path, root };
}
