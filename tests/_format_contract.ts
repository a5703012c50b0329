/**
 * The contract every other tool's format adapter keeps, checked the same way for each (as
 * `_store_contract.ts` does for stores): a session of the adapter's fixture, laid out in a
 * root of its tool, is detected, found by a prefix of its id, listed, read, searched (against
 * the fixture's oracle), repaired under damage (the cases checked counted) and imported, then
 * resumed. An adapter without fixtures fails.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { paired } from "./_formats.ts";
import {
  collectSession,
  detectFormat,
  detectSessionsRoot,
  type FormatAdapter,
} from "../src/formats/mod.ts";
import { homeSourceAt, searchSessions } from "../src/search/mod.ts";
import { importSession } from "../src/import/mod.ts";
import { resumeFile } from "../src/resume/mod.ts";
import { isEmptyPlan, repairSession } from "../src/repair/mod.ts";
import { readSidecar } from "../testing/sidecar.ts";

/** One session of an adapter's format, written into a root of its tool. */
export interface ContractSession {
  /** The sessions root it was written into. */
  root: string;
  /** The session file. */
  path: string;
  /** The session id the file carries. */
  id: string;
}

/** What the contract needs of an adapter. */
export interface FormatFixture {
  /** Writes a session (with a call and its result) into a root of the tool under `dir`. */
  write(dir: string): Promise<ContractSession>;
  /** The file's line numbers whose conversation holds every term: search's oracle. */
  oracle(path: string, terms: string[]): Promise<number[]>;
}

/** Lines without their newline. */
const linesOf = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** The damages the repair part applies, each to a fresh copy: every one a case. */
const DAMAGES: Record<string, (text: string) => string> = {
  "a torn last line": (text) => text.slice(0, text.trimEnd().length - 7),
  "two lines glued": (text) => {
    const lines = linesOf(text);
    const at = Math.floor(lines.length / 2);
    return [...lines.slice(0, at), lines[at]! + lines[at + 1]!, ...lines.slice(at + 2)]
      .map((line) => `${line}\n`).join("");
  },
  "a line of NULs": (text) => {
    const lines = linesOf(text);
    lines.splice(2, 0, "\u0000".repeat(40));
    return lines.map((line) => `${line}\n`).join("");
  },
};

/**
 * Checks the contract for `adapter` with `fixtures[adapter.name]`; returns how many repair
 * cases were checked.
 *
 * @throws when the adapter has no fixture, or a part of the contract fails
 */
export async function checkFormatContract(
  adapter: FormatAdapter,
  fixtures: Record<string, FormatFixture>,
  dir: string,
): Promise<number> {
  const fixture = fixtures[adapter.name];
  if (fixture === undefined) {
    throw new Error(`The adapter ${adapter.name} has no fixture in the contract suite: add one`);
  }
  const session = await fixture.write(join(dir, "home"));

  // Detect: the file by its head, the root by its names.
  const detected = await detectFormat(session.path);
  assertEquals("format" in detected ? detected.format : undefined, adapter.name);
  assert(await adapter.claimsRoot(session.root), `${adapter.name} claims ${session.root}`);
  assertEquals((await detectSessionsRoot(session.root))?.format, adapter.name);

  // Find by prefix, list.
  const found = await adapter.find(session.root, session.id.slice(0, 8));
  assertEquals([found.id, found.path], [session.id, session.path]);
  const listing = await adapter.list(session.root, {});
  assertEquals(listing.sessions.map((listed) => listed.id), [session.id]);

  // Read.
  const read = await collectSession(session.path, adapter.name);
  assertEquals(read.facts.sessionId, session.id);
  assert(read.records.length > 0 && read.facts.turns > 0, `${adapter.name}: records and turns`);
  assert(read.facts.firstPrompt !== null, `${adapter.name}: a first prompt`);

  // Search against the oracle: a word of the first prompt.
  const word = read.facts.firstPrompt.match(/[A-Za-z]{4,}/)?.[0];
  assert(word !== undefined, `a word in ${JSON.stringify(read.facts.firstPrompt)}`);
  const hits: number[] = [];
  const source = homeSourceAt(adapter, session.root);
  for await (const event of searchSessions({ terms: [word] }, { sources: [source] })) {
    if (event.kind === "session") hits.push(...event.hits.map((hit) => hit.line));
  }
  const expected = await fixture.oracle(session.path, [word]);
  assert(expected.length > 0, `the oracle finds ${word}`);
  assertEquals(hits.toSorted((a, b) => a - b), expected, `search for ${word}`);

  // Repair under damage: each case's every original line kept, a second repair idle.
  const clean = await Deno.readTextFile(session.path);
  let cases = 0;
  for (const [name, damage] of Object.entries(DAMAGES)) {
    const copy = join(dir, `${cases}-${adapter.name}`);
    await Deno.mkdir(copy);
    const path = join(copy, session.path.slice(session.path.lastIndexOf("/") + 1));
    const damaged = damage(clean);
    await Deno.writeTextFile(path, damaged);
    if ((await detectFormat(path)).format !== adapter.name) continue;
    await repairSession(path);
    const now = new Set(linesOf(await Deno.readTextFile(path)));
    const kept = new Set((await readSidecar(path)).map((e) => new TextDecoder().decode(e.bytes)));
    for (const line of linesOf(damaged)) {
      assert(now.has(line) || kept.has(line), `${adapter.name}, ${name}: a line is lost`);
    }
    assert(isEmptyPlan((await repairSession(path)).plan), `${adapter.name}, ${name}: idle`);
    cases++;
  }
  assert(cases > 0, `${adapter.name}: no repair case checked`);

  // Import, then resume: the history sent pairs every call.
  const imported = await importSession(session.path, { root: join(dir, "sessions") });
  const resumed = await resumeFile(imported.path);
  assert(resumed.history.length > 0, `${adapter.name}: an imported history`);
  assert(paired(resumed.history), `${adapter.name}: the resumed history pairs every call`);
  return cases;
}
