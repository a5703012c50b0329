/**
 * A grown file's facts come from its last turn and the lines appended (src/catalog/_grow.ts):
 * the bytes an update reads of it are what was appended, its last turn and the listing's
 * bounded head and tail, whatever its size; a rewind is read whole and counted as a fallback. A
 * listing continues its facts without its text; the next search puts in the appended lines alone.
 */
import { dirname, join } from "node:path";
import { existsSync } from "node:fs";
import { Catalog } from "../src/catalog/mod.ts";
import { keptFacts, readGrown, trackerOf } from "../src/catalog/_grow.ts";
import { adapterByFlag } from "../src/formats/mod.ts";
import { PREVIEW_HEAD_BYTES, TAIL_BYTES } from "../src/formats/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { claudeCompaction } from "../testing/formats/claude_fixtures.ts";
import { assert, assertEquals } from "./_assert.ts";
import {
  appendLines,
  catalogAnswers,
  catalogHome,
  countParses,
  goOn,
  type HomeFile,
  repeatLine,
  tearLine,
} from "./_catalog_home.ts";

/** The bytes before the indexed offset whose hash proves the indexed prefix unchanged. */
const TAIL_HASH_BYTES = 4096;

const sizeOf = (file: HomeFile) => Deno.statSync(file.path).size;

const bytesOf = (reads: { path: string; start: number; end: number }[], path: string) =>
  reads.filter((read) => read.path === path).reduce((n, read) => n + read.end - read.start, 0);

for (const [at, noun] of [[0, "Claude Code transcript"], [2, "Codex rollout"]] as const) {
  Deno.test(`Catalog.update() reads a grown ${noun} from its last turn: the appended bytes twice at most, plus the listing's bounded head and tail`, async () => {
    await using home = await catalogHome();
    const file = home.files[at]!;
    await appendLines(file, file.lines.length);
    let n = 0;
    while (sizeOf(file) < 2 << 20) await goOn(file, n++);
    using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
    await catalog.update(await home.sources());

    const before = sizeOf(file);
    await goOn(file, n++);
    await goOn(file, n++);
    const appended = sizeOf(file) - before;
    using io = countIo();
    const summary = await catalog.update(await home.sources());
    const read = bytesOf(io.take().reads, file.path);
    assertEquals([summary.grown, summary.fallbacks], [1, 0]);
    // The last turn before the append (one turn of `goOn`) is read again with it.
    const limit = 2 * appended + PREVIEW_HEAD_BYTES + TAIL_BYTES + TAIL_HASH_BYTES;
    assert(read <= limit, `${read} bytes read of ${sizeOf(file)}, ${appended} appended`);

    // A rewind (a copy of an earlier line) is read whole, and counted.
    await repeatLine(file, 3);
    const rewound = await catalog.update(await home.sources());
    assertEquals([rewound.grown, rewound.fallbacks], [1, at === 2 ? 0 : 1]);
    const sources = await home.sources();
    using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
    await fresh.update(sources);
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  });
}

Deno.test("Catalog.update() reads a Codex rollout whole when its appended token count may say the total before its turn again", async () => {
  await using home = await catalogHome();
  const file = home.files[2]!;
  const lines = new CodexRolloutBuilder().meta().taskStarted("t1").prompt("List the files")
    .turnContext({ turnId: "t1", model: "gpt-5.5", approval: "never" }).answer("a.txt")
    .tokens(1000, 20).taskComplete("t1").taskStarted("t2").prompt("Again")
    .turnContext({ turnId: "t2", model: "gpt-5.5", approval: "never" }).text()
    .split("\n").filter((line) => line !== "");
  // The total before the turn, said again (Codex repeats a token count when only its rate
  // limits changed): counted once by a whole read.
  const again = lines.find((line) => line.includes('"token_count"'))!;
  const rest = new CodexRolloutBuilder().answer("a.txt still").tokens(1100, 30).taskComplete("t2")
    .text().split("\n").filter((line) => line !== "");
  file.lines = [...lines, again, ...rest];
  await appendLines(file, lines.length);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  await appendLines(file, 1 + rest.length);
  // The turn so far has no token count: a whole read tells whether it is said again.
  const summary = await catalog.update(sources);
  assertEquals([summary.grown, summary.fallbacks], [1, 1]);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
});

Deno.test("ResumeTracker keeps no turn of a fork's rollout: its first line refuses for the whole file", () => {
  const state = (forked: boolean) => {
    const tracker = trackerOf(adapterByFlag("codex")!)!;
    const text = new CodexRolloutBuilder().meta().taskStarted("t1").prompt("Go on").text();
    let start = 0;
    text.split("\n").filter((line) => line !== "").forEach((line, at) => {
      const value = JSON.parse(line);
      if (forked && value.type === "session_meta") value.payload.forked_from_id = "019c-parent";
      const end = start + line.length + 1;
      tracker.see({ line: at + 1, text: line, start, end, terminated: true }, value, at);
      start = end;
    });
    return tracker.save(start, 0, 0);
  };
  assert(state(false) !== null);
  assertEquals(state(true), null);
});

/** The lines a file has now (each whole line ends with a newline). */
const linesIn = (file: HomeFile) =>
  Deno.readFileSync(file.path).reduce((n, byte) => n + (byte === 0x0a ? 1 : 0), 0);

Deno.test("Catalog.update() without text continues a grown transcript's facts from its last turn (bytes and lines parsed bounded by what was appended), and the next with text puts in the appended lines' rows alone, as a fresh build has them", async () => {
  await using home = await catalogHome();
  const file = home.files[0]!;
  await appendLines(file, file.lines.length);
  let n = 0;
  while (sizeOf(file) < 1 << 20) await goOn(file, n++);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  const rows = catalogAnswers(catalog, sources).lines;
  const whole = linesIn(file);

  // Two listings, each after turns appended: the second's last turn starts past where the
  // rows stopped, so the search reads from the first one's cut.
  let appended = 0, appendedLines = 0;
  for (const turns of [2, 1]) {
    const [size, lines] = [sizeOf(file), linesIn(file)];
    for (let i = 0; i < turns; i++) await goOn(file, n++);
    [appended, appendedLines] = [
      appended + sizeOf(file) - size,
      appendedLines + linesIn(file) - lines,
    ];
    using io = countIo();
    const [summary, parsed] = await countParses(() => catalog.update(sources, { text: false }));
    const read = bytesOf(io.take().reads, file.path);
    assertEquals([summary.grown, summary.fallbacks, summary.texted], [1, 0, 0]);
    const limit = 2 * (sizeOf(file) - size) + PREVIEW_HEAD_BYTES + TAIL_BYTES + TAIL_HASH_BYTES;
    assert(read <= limit, `${read} bytes read of ${sizeOf(file)}`);
    // Each line of the last turn and of those appended parsed a few times (the inspector's
    // of the turn as it was and as it is), the listing's head and tail aside: nothing near
    // the file's lines.
    const near = 4 * (linesIn(file) - lines + 2) + 60;
    assert(parsed <= near, `${parsed} lines parsed, ${linesIn(file) - lines} appended of ${whole}`);
    // The rows wait for a search.
    assertEquals(catalogAnswers(catalog, sources).lines, rows);
  }
  using io = countIo();
  const [caught, parsed] = await countParses(() => catalog.update(sources));
  const read = bytesOf(io.take().reads, file.path);
  assertEquals([caught.grown, caught.texted], [0, 1]);
  // From the first listing's cut (a turn before the lines appended) to the end, once.
  assert(read <= 2 * appended + TAIL_HASH_BYTES, `${read} bytes read, ${appended} appended`);
  assert(parsed <= 2 * (appendedLines + 2), `${parsed} parsed, ${appendedLines} appended`);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  const answers = catalogAnswers(catalog, sources);
  assertEquals(answers, catalogAnswers(fresh, sources));
  assertEquals(answers.lines.length - rows.length, appendedLines);
});

for (
  const [at, noun, turns] of [[0, "Claude Code transcript", 200], [2, "Codex rollout", 50]] as const
) {
  Deno.test(`Catalog.update() parses a grown ${noun}'s appended lines once (the state followed on the inspector's parse), its listing's head and tail aside`, async () => {
    await using home = await catalogHome();
    const file = home.files[at]!;
    await appendLines(file, file.lines.length);
    using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
    const sources = await home.sources();
    await catalog.update(sources, { text: false });

    const lines = linesIn(file);
    for (let n = 0; n < turns; n++) await goOn(file, n);
    const appended = linesIn(file) - lines;
    const [summary, parsed] = await countParses(() => catalog.update(sources, { text: false }));
    assertEquals([summary.grown, summary.fallbacks], [1, 0]);
    // The last turn before the append is parsed twice (as it was, and with the lines
    // appended), the listing's head and tail aside; a reading for the state of its own parsed
    // every line once more (831 and 1056 here).
    const limit = appended + 60;
    assert(parsed <= limit, `${parsed} parsed, ${appended} lines appended`);
    using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
    await fresh.update(sources, { text: false });
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  });
}

Deno.test("Catalog.update() writes the copy of a grown file's last turn for its user alone (0600 in a folder of 0700) and leaves no copy behind", async () => {
  await using home = await catalogHome();
  const file = home.files[0]!;
  await appendLines(file, file.lines.length);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources, { text: false });
  await goOn(file, 0);

  const copies: { path: string; mode: number; folder: number }[] = [];
  const openSync = Deno.openSync;
  Deno.openSync = (path, options) => {
    const opened = openSync(path, options);
    if (options?.write && String(path).includes("turnlog-grown-")) {
      const mode = (at: string) => Deno.statSync(at).mode! & 0o777;
      copies.push({
        path: String(path),
        mode: mode(String(path)),
        folder: mode(dirname(String(path))),
      });
    }
    return opened;
  };
  let summary;
  try {
    summary = await catalog.update(sources, { text: false });
  } finally {
    Deno.openSync = openSync;
  }
  assertEquals([summary.grown, summary.fallbacks], [1, 0]);
  // As it was (its last turn) and as it is (with the turn appended).
  assertEquals(copies.map(({ mode, folder }) => [mode, folder]), [[0o600, 0o700], [0o600, 0o700]]);
  assert(copies.every((copy) => !existsSync(dirname(copy.path))));
});

for (const [at, noun] of [[0, "Claude Code transcript"], [2, "Codex rollout"]] as const) {
  Deno.test(`Catalog.update() continues a grown ${noun} past blank and whitespace lines appended, as a fresh read answers`, async () => {
    await using home = await catalogHome();
    const file = home.files[at]!;
    await appendLines(file, file.lines.length);
    using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
    const sources = await home.sources();
    await catalog.update(sources, { text: false });

    await goOn(file, 0);
    // A blank line and one of spaces between turns (a line its reader does not tell, and one
    // it tells as not JSON), then the session going on.
    file.lines.splice(file.written, 0, "", "   ");
    await appendLines(file, 2);
    await goOn(file, 1);
    const summary = await catalog.update(sources, { text: false });
    assertEquals([summary.grown, summary.fallbacks], [1, 0]);
    using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
    await fresh.update(sources, { text: false });
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
    // And its text, put in from where the listing's rows stopped, as a fresh build has it.
    await catalog.update(sources);
    await fresh.update(sources);
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  });
}

Deno.test("Catalog.update() reads a grown Codex rollout whole when its last turn began at a prompt counted ahead of its turn, and its text's turns are a fresh build's", async () => {
  // Found by the property test (seed -453316992): a turn that went on inside the first (its
  // prompt, then the first turn's lines) left the prompt counted a turn ahead; a counter from
  // it counted the lines after it two turns on.
  await using home = await catalogHome();
  const file = home.files[2]!;
  for (const each of home.files) await appendLines(each, 4);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources);
  await goOn(file, 0);
  await appendLines(file, 7);
  await catalog.update(sources);
  await goOn(file, 1);
  const summary = await catalog.update(sources, { text: false });
  assertEquals([summary.grown, summary.fallbacks], [1, 1]);
  await catalog.update(sources);
  using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
  await fresh.update(sources);
  assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
});

/** A Codex rollout of three turns with a compaction in its second, and a turn after it. */
function codexCompacted(): string {
  const turn = (b: CodexRolloutBuilder, id: string, prompt: string) =>
    b.taskStarted(id).prompt(prompt)
      .turnContext({ turnId: id, model: "gpt-5.5", approval: "never" })
      .call(`call-${id}`, "exec_command", '{"cmd":"deno test"}')
      .output(`call-${id}`, "Process exited with code 0\nOutput:\nok")
      .answer(`Done with ${prompt}.`).tokens(1000, 20, 500).taskComplete(id);
  const b = turn(new CodexRolloutBuilder().meta(), "t1", "the tests");
  turn(b.taskStarted("t2").prompt("Compact, then go on"), "t2b", "the modules");
  b.compacted("Summary: the tests and the modules pass.", [
    { type: "message", role: "user", content: [{ type: "input_text", text: "Summary" }] },
  ]);
  return turn(b, "t3", "the docs").text();
}

for (
  const [at, noun, lines] of [
    [0, "Claude Code transcript", claudeCompaction],
    [2, "Codex rollout", codexCompacted],
  ] as const
) {
  Deno.test(`Catalog.update() continues a ${noun} grown a line at a time, through torn tails, a rewind and a compaction, to a whole read's answers after each update`, async () => {
    await using home = await catalogHome();
    const file = home.files[at]!;
    file.lines = lines().split("\n").filter((line) => line !== "");
    // A copy of its third line appended after the rest: a Claude Code rewind to it, in a Codex
    // rollout a line said again.
    file.lines.push(file.lines[2]!);
    const sources = await home.sources();
    using kept = Catalog.open({ path: join(home.dir, "kept.sqlite") });
    let continued = 0, fallbacks = 0;
    const fresh = async (text: boolean) => {
      await Deno.remove(join(home.dir, "fresh.sqlite")).catch(() => {});
      await Deno.remove(join(home.dir, "fresh.sqlite-wal")).catch(() => {});
      using made = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
      await made.update(sources, { text });
      return catalogAnswers(made, sources);
    };
    for (let n = 0; file.written < file.lines.length; n++) {
      // Every third line torn first: the update waits for its rest.
      if (n % 3 === 1) await tearLine(file);
      else await appendLines(file, 1);
      // Listings (the facts alone) and searches (the text too) in turn.
      const summary = await kept.update(sources, { text: n % 2 === 0 });
      continued += summary.grown - summary.fallbacks;
      fallbacks += summary.fallbacks;
      const facts = catalogAnswers(kept, sources).sessions;
      assertEquals(facts, (await fresh(false)).sessions, `update ${n}`);
    }
    await kept.update(sources);
    assertEquals(catalogAnswers(kept, sources), await fresh(true));
    // Lines went the continued way, and the compaction (and Claude Code's rewind) whole.
    assert(continued > 5 && fallbacks > 0, `${continued} continued, ${fallbacks} read whole`);
  });
}

Deno.test("readGrown() keeps the lines' parsed objects only when asked (a search's update puts in their text rows), its facts the same either way", async () => {
  await using home = await catalogHome();
  const file = home.files[0]!;
  await appendLines(file, file.lines.length);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  await catalog.update(await home.sources(), { text: false });
  const { id, indexed } = catalog.db.prepare("SELECT id, indexed FROM files WHERE path = ?")
    .get(file.path) as { id: number; indexed: number };
  await goOn(file, 0);
  await goOn(file, 1);
  const read = async (values: boolean) => {
    const kept = keptFacts(catalog.db, id);
    const grown = await readGrown(
      file.path,
      sizeOf(file),
      indexed,
      adapterByFlag("claude")!,
      kept,
      {
        values,
      },
    );
    assert(typeof grown !== "string", String(grown));
    return grown;
  };
  const [asked, listing] = [await read(true), await read(false)];
  // Each whole line's object (the turn's and the four appended), then none.
  assertEquals(
    asked.values.filter((value) => typeof value === "object").length,
    asked.lines.length,
  );
  assertEquals(listing.values, asked.lines.map(() => undefined));
  assertEquals({ ...listing, values: [] }, { ...asked, values: [] });
});

Deno.test("Catalog.update() starts no worker for grown files, even when told it may: their facts are continued in this thread (a new file's are read beside a worker)", async () => {
  await using home = await catalogHome();
  for (const file of home.files) await appendLines(file, file.lines.length);
  using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
  const sources = await home.sources();
  await catalog.update(sources, { text: false });
  for (const at of [0, 2]) await goOn(home.files[at]!, at);

  const started: string[] = [];
  const Original = globalThis.Worker;
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options);
      started.push(options?.name ?? String(url));
    }
  };
  try {
    const summary = await catalog.update(sources, { text: false, workers: 2 });
    assertEquals([summary.grown, summary.fallbacks, summary.read], [2, 0, 0]);
    assertEquals(started, []);
    // A file read whole goes to the workers asked for: the spy sees them.
    using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
    await fresh.update(sources, { text: false, workers: 1 });
    assertEquals(started, ["turnlog catalog facts"]);
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  } finally {
    globalThis.Worker = Original;
  }
});
