/**
 * Repair of every other tool's session files in place (each adapter of the registry, with its
 * fixtures by adapter name: an adapter without any fails), on files the project's own
 * generators write: for each kind of damage, the dry run writes nothing, --write gives a file
 * the format's validator accepts and that reads like the undamaged conversation plus the
 * synthesized results, every original line stays in the file or the sidecar, and a second
 * repair changes nothing.
 */
import { join } from "node:path";
import { assert, assertEquals, assertThrows } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { byteString, sidecarPayloadLines, splitLines } from "./_inspect_fixtures.ts";
import { describeEntry } from "./_formats.ts";
import {
  ADAPTERS,
  collectSession,
  type FormatAdapter,
  INTERRUPTED_RESULT,
  validateSessionFile,
} from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { isEmptyPlan, planFileRepair, repairSession } from "../src/repair/mod.ts";
import { quarantinePath } from "../src/store/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { CODEX_SESSION_ID } from "../testing/formats/codex_builder.ts";
import { REPAIR_FIXTURES, type RepairFixture } from "../testing/formats/repair_fixtures.ts";

/** A format's name, as the registry names it. */
type ForeignFormat = string;

/** The file name each tool gives a session, by adapter name. */
const NAMES: Record<string, string> = {
  "claude-code": `${CLAUDE_SESSION_ID}.jsonl`,
  codex: `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`,
  gemini: "session-2026-12-01T10-00-5a7e0c1d.jsonl",
};

/** Every adapter's repair fixtures, by adapter name. */
const FIXTURES: Record<string, Record<string, () => RepairFixture>> = REPAIR_FIXTURES;

/** The tool's name, for messages. */
const TOOL = (format: string) => ADAPTERS.find((adapter) => adapter.name === format)!.tool;

async function readIfThere(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return new Uint8Array();
    throw error;
  }
}

/** Writes `text` as the session file of `format` in a folder of its own under `dir`. */
async function write(dir: string, folder: string, format: ForeignFormat, text: string) {
  await Deno.mkdir(join(dir, folder), { recursive: true });
  const path = join(dir, folder, NAMES[format]!);
  await Deno.writeTextFile(path, text);
  return path;
}

/** The file's reading, one line per entry, without line numbers (lines move in a repair). */
async function reading(path: string, format: ForeignFormat): Promise<string[]> {
  const { entries } = await collectSession(path, format);
  return entries.map((entry) => describeEntry(entry).replace(/^\d+ /, ""));
}

/** A result repair wrote: Claude Code's says the text, Codex's says it after `aborted: `. */
const synthesized = (line: string) =>
  /^output \S+ \S+(?: error)?: /.test(line) &&
  line.replace(/^output \S+ \S+(?: error)?: (?:aborted: )?/, "") === INTERRUPTED_RESULT;

/** The sidecar's entries: the line each kept line stood on, and its text. */
function sidecarEntries(text: string): { line: number; text: string }[] {
  const lines = text.split("\n");
  const entries = [];
  for (let at = 0; at + 1 < lines.length; at += 2) {
    const line = Number(/^# turnlog quarantine: line (\d+),/.exec(lines[at]!)?.[1]);
    entries.push({ line, text: lines[at + 1]! });
  }
  return entries;
}

/** The uuid a line names, if it is JSON with one. */
function uuidOf(text: string): string | undefined {
  try {
    return JSON.parse(text).uuid;
  } catch {
    return undefined;
  }
}

/**
 * The undo docs/other-tools.md describes, done by a program: the lines repair wrote deleted,
 * each kept line put back at its line, in place of the lines that stand for it now (the same
 * uuid, or a record glued in it).
 */
function undo(repaired: string, sidecar: string): string {
  let lines = repaired.split("\n");
  const end = lines.pop();
  lines = lines.filter((line) => !line.includes("written by turnlog repair"));
  const entries = sidecarEntries(sidecar).sort((a, b) => a.line - b.line);
  for (const { text } of entries) {
    lines = lines.filter((line) => {
      const uuid = uuidOf(line);
      return !(line.length > 0 && text.includes(line)) &&
        !(uuid !== undefined && text.includes(`"uuid":"${uuid}"`));
    });
  }
  for (const { line, text } of entries) lines.splice(line - 1, 0, text);
  // A torn last line had no newline after it.
  const torn = / torn_tail, /.test(sidecar);
  return lines.join("\n") + (end !== "" ? `\n${end}` : torn ? "" : "\n");
}

/** Checks one fixture through the whole cycle; returns the repaired file's path. */
async function repairCycle(dir: string, format: ForeignFormat, fixture: RepairFixture) {
  const path = await write(dir, "damaged", format, fixture.damaged);
  const clean = await write(dir, "clean", format, fixture.clean);
  const before = await Deno.readFile(path);

  const dry = await planFileRepair(await inspectSession(path));
  assertEquals(await Deno.readFile(path), before, "the dry run writes nothing");
  assertEquals(await readIfThere(quarantinePath(path)), new Uint8Array(), "nor a sidecar");

  const { plan, after, validation } = await repairSession(path);
  assertEquals(plan, dry, "the plan carried out is the plan shown");
  assertEquals(validation?.findings, [], `${TOOL(format)}'s check passes after the repair`);
  assert(after.healthy, "the inspector finds the repaired file healthy");
  assertEquals((await validateSessionFile(path, format)).valid, true);

  const repaired = await Deno.readFile(path);
  const sidecar = await readIfThere(quarantinePath(path));
  const now = new Set(splitLines(repaired).map(byteString));
  const kept = new Set(sidecarPayloadLines(sidecar));
  for (const line of splitLines(before).map(byteString)) {
    if (line.length === 0) continue;
    assert(now.has(line) || kept.has(line), `an original line is lost: ${line.slice(0, 80)}`);
  }
  const restored = undo(new TextDecoder().decode(repaired), new TextDecoder().decode(sidecar));
  assertEquals(
    restored.replace(/\n$/, ""),
    fixture.damaged.replace(/\n$/, ""),
    "the undo restores it",
  );
  const leftover = [...Deno.readDirSync(join(dir, "damaged"))].map((e) => e.name).sort();
  assertEquals(leftover.filter((name) => name.includes(".repair-")), [], "no temp file is left");

  const again = await repairSession(path);
  assert(isEmptyPlan(again.plan), "a second repair finds nothing to do");
  assertEquals(await Deno.readFile(path), repaired, "and changes nothing");
  assertEquals(await readIfThere(quarantinePath(path)), sidecar);

  const read = await reading(path, format);
  const outputs = read.filter(synthesized).map((line) => line.split(" ")[1]);
  assertEquals(outputs, fixture.synthesized, "each call without a result gets one");
  const removed = (line: string) => fixture.removed.some((id) => line.startsWith(`output ${id} `));
  assertEquals(
    read.filter((line) => !synthesized(line)),
    (await reading(clean, format)).filter((line) => !removed(line)),
    "the reader gives the undamaged conversation, plus the synthesized results",
  );
  return { path, plan, before, repaired, sidecar };
}

/** The adapter's repair fixtures and the name of its files; throws when it has none. */
function fixturesOf(adapter: FormatAdapter, table = FIXTURES, names = NAMES) {
  const fixtures = table[adapter.name];
  if (fixtures === undefined || Object.keys(fixtures).length === 0 || !names[adapter.name]) {
    throw new Error(`The adapter ${adapter.name} has no repair fixtures: add them`);
  }
  return fixtures;
}

for (const adapter of ADAPTERS) {
  Deno.test(`repairSession() has fixtures for ${adapter.tool}`, () => {
    assert(Object.keys(fixturesOf(adapter)).length >= 5, "a crash, a torn line, NULs, glued, ...");
  });
  for (const [name, make] of Object.entries(FIXTURES[adapter.name] ?? {})) {
    Deno.test(`repairSession() on a ${adapter.tool} file: ${name.replaceAll("_", " ")}`, async () => {
      await using dir = await tempDir();
      const fixture = make();
      const { plan } = await repairCycle(dir.path, adapter.name, fixture);
      assertEquals(plan.format, adapter.name);
      if (name === "complete_parallel") assert(isEmptyPlan(plan), "complete parallel calls stay");
      if (name.startsWith("crash_mid")) assert(isEmptyPlan(plan), "nothing reached the file");
    });
  }
}

Deno.test("repairSession() fixtures: an adapter without any fails", () => {
  const adapter = ADAPTERS[0]!;
  const { [adapter.name]: _left, ...without } = FIXTURES;
  const error = assertThrows(() => fixturesOf(adapter, without), Error);
  assertEquals(error.message, `The adapter ${adapter.name} has no repair fixtures: add them`);
});
