/**
 * The catalog reads each file once on an update: the text index's lines come from the lines the
 * inspector's reader parses (`ReadSessionOptions.onLine`), so an update reads and parses a
 * session file of another tool exactly as much as the inspector, the listing's preview and the
 * hash of its indexed tail do, and not once more for the index.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { countIo } from "../testing/io_counter.ts";
import { Catalog, tailHash } from "../src/catalog/mod.ts";
import { adapterByFlag, type Json } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { searchProfile } from "../src/search/mod.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { claudeBasic } from "../testing/formats/claude_fixtures.ts";
import { geminiToolSession } from "../testing/formats/gemini_builder.ts";

/** A file of each other tool, where its home keeps it (below the root), and its text. */
const FILES: { flag: string; place: string; text: () => string }[] = [
  {
    flag: "codex",
    place: "2026/02/23/rollout-2026-02-23T12-40-23-019c8a4c-0000-7000-8000-000000000001.jsonl",
    text: codexTurnIds,
  },
  {
    flag: "claude",
    place: "-work-p/7acd37a8-0000-4000-8000-000000000001.jsonl",
    text: claudeBasic,
  },
  {
    flag: "gemini",
    place: "work-p/chats/session-2026-12-01T10-00-5a7e0c1d.jsonl",
    text: () => geminiToolSession().text(),
  },
];

/**
 * Counts the calls of `JSON.parse` on one of `lines` while it is installed (not those on a
 * string a line holds, a tool call's arguments).
 */
function countParses(lines: Set<string>): Disposable & { take(): number } {
  const original = JSON.parse;
  let calls = 0;
  JSON.parse = (...args: Parameters<typeof JSON.parse>) => {
    if (lines.has(args[0])) calls++;
    return original(...args);
  };
  return {
    take: () => [calls, calls = 0][0]!,
    [Symbol.dispose]: () => void (JSON.parse = original),
  };
}

const bytesOf = (reads: { path: string; start: number; end: number }[], path: string) =>
  reads.filter((read) => read.path === path).reduce((n, read) => n + read.end - read.start, 0);

for (const { flag, place, text } of FILES) {
  const adapter = adapterByFlag(flag)!;
  Deno.test(`Catalog.update() reads and parses a ${adapter.fileNoun} once for its facts and its text`, async () => {
    await using dir = await tempDir();
    const root = join(dir.path, "root");
    const path = join(root, place);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text());
    const size = Deno.statSync(path).size;
    const profile = searchProfile(adapter.name);
    const [walked] = await Array.fromAsync(profile.walk(root));
    assert(walked !== undefined && walked.path === path, `${path} not found by the walk`);

    using io = countIo();
    using parses = countParses(new Set(text().split("\n")));
    // What an update needs besides the index: the inspector's read, the listing's preview
    // (its head and a bounded tail), the hash of the indexed tail.
    await inspectSession(path);
    await adapter.preview({
      format: adapter.name,
      id: walked.id,
      path,
      created: null,
      modified: null,
      sizeBytes: size,
      project: walked.project,
    });
    await tailHash(path, size);
    const needed = { bytes: bytesOf(io.take().reads, path), parses: parses.take() };
    assert(needed.bytes >= size);

    using catalog = Catalog.open({ path: join(dir.path, "c.sqlite") });
    parses.take();
    io.take();
    const summary = await catalog.update([{ format: adapter.name, root }]);
    const made = { bytes: bytesOf(io.take().reads, path), parses: parses.take() };
    assertEquals([summary.read, made], [1, needed]);

    // Every line whose conversation the search profile finds is in the index, with its roles.
    const expected: { line: number; roles: string }[] = [];
    text().split("\n").forEach((line, at) => {
      if (line.trim() === "") return;
      const pieces = profile.pieces(JSON.parse(line) as Json);
      const roles = [...new Set(pieces.map((piece) => piece.role))].join(",");
      if (pieces.length > 0) expected.push({ line: at + 1, roles });
    });
    assert(expected.length > 0);
    const indexed = catalog.db.prepare("SELECT line, roles FROM lines ORDER BY line").all()
      .map((row) => ({ line: Number(row.line), roles: String(row.roles) }));
    assertEquals(indexed, expected);
  });
}
