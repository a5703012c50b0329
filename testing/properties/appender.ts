/**
 * The property that an appender during a repair never loses a line: another tool's session
 * file is repaired while the tool (which takes no lock) appends lines after repair's last
 * check, by path in the window before the rename, and through a handle it opened before the
 * rename, a moment after it. Every line it appended must be in the repaired file, once, in its
 * order.
 *
 * @module
 */
import fc from "fast-check";
import { join } from "node:path";
import type { ForeignFormat } from "../../src/formats/mod.ts";
import { repairForeignFile } from "../../src/repair/mod.ts";
import {
  claudeCrashOneCall,
  claudeTornLine,
  codexCrashOneCall,
  codexTornLine,
  type RepairFixture,
} from "../formats/repair_fixtures.ts";

const FIXTURES: [ForeignFormat, () => RepairFixture][] = [
  ["claude-code", claudeCrashOneCall],
  ["claude-code", claudeTornLine],
  ["codex", codexCrashOneCall],
  ["codex", codexTornLine],
];

/** A repair raced by an appender: which file, and what it appends when. */
export interface AppenderCase {
  /** Index into the fixtures: a crash (rewrite) or a torn line (cut), Claude Code or Codex. */
  fixture: number;
  /** Lines appended by path after the last check, before the rename. */
  inWindow: number;
  /** Lines written, after the rename, through a handle opened before it. */
  late: number;
  /** How long after the rename the late lines come, in milliseconds. */
  delayMs: number;
}

/** An arbitrary {@linkcode AppenderCase}. */
export const appenderCaseArbitrary: fc.Arbitrary<AppenderCase> = fc.record({
  fixture: fc.integer({ min: 0, max: FIXTURES.length - 1 }),
  inWindow: fc.integer({ min: 0, max: 3 }),
  late: fc.integer({ min: 0, max: 3 }),
  delayMs: fc.integer({ min: 0, max: 40 }),
});

const encoder = new TextEncoder();

/** The tool's line number `n`, in its own shapes' neighbourhood (a line it may append). */
const toolLine = (n: number) => `{"type":"queue-operation","operation":"enqueue","n":${n}}\n`;

/**
 * Runs one case in `dir`; returns what went wrong (a line lost or doubled, out of order), or
 * undefined when every appended line is in the repaired file once, in order.
 */
export async function appenderLosesLine(dir: string, c: AppenderCase): Promise<string | undefined> {
  const [format, fixture] = FIXTURES[c.fixture]!;
  const path = join(dir, format === "codex" ? "rollout-2026-02-23T12-00-00-x.jsonl" : "s.jsonl");
  await Deno.writeTextFile(path, fixture().damaged);
  const appended: string[] = [];
  const late: Promise<void>[] = [];
  let n = 0;
  await repairForeignFile(path, format, {
    beforeReplace: async () => {
      for (let i = 0; i < c.inWindow; i++) {
        appended.push(toolLine(++n));
        await Deno.writeTextFile(path, appended.at(-1)!, { append: true });
      }
      if (c.late === 0) return;
      const handle = await Deno.open(path, { append: true });
      const lines = Array.from({ length: c.late }, () => toolLine(++n));
      appended.push(...lines);
      late.push(
        new Promise((done) => setTimeout(done, c.delayMs)).then(async () => {
          for (const line of lines) await handle.write(encoder.encode(line));
          handle.close();
        }),
      );
    },
  });
  await Promise.all(late);
  const text = await Deno.readTextFile(path);
  const found = appended.map((line) => text.indexOf(line));
  for (const [i, line] of appended.entries()) {
    if (found[i] === -1) return `lost ${line.trim()}`;
    if (text.indexOf(line, found[i]! + 1) !== -1) return `doubled ${line.trim()}`;
    if (i > 0 && found[i]! < found[i - 1]!) return `out of order: ${line.trim()}`;
  }
  return undefined;
}
