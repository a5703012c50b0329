/**
 * Another tool's session followed as it grows (issue 39 point 8): after every append the
 * follower's report is the report a whole read gives, reading what was appended (and the
 * open turn's lines) only; a rewind that moves Claude Code's active branch reads the file
 * again and says which turns changed.
 *
 * @module
 */
import { basename, join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { inspectSession, SessionFollower } from "../src/inspect/mod.ts";
import { claudeTranscriptLines, codexRolloutLines } from "../testing/formats/scale.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { claudeIds } from "../testing/formats/claude_fixtures.ts";
import { countIo } from "../testing/io_counter.ts";
import { forkHome } from "./_codex_fork_home.ts";
import { GEMINI_SESSION_ID, GeminiSessionBuilder } from "../testing/formats/gemini_builder.ts";
import { fatTime, msTime, ownTimesOnly, rewriteUnseen, wholeSecondNow } from "./_racy.ts";

/** The follower's report and a whole read's of the file as it is, as JSON. */
async function bothReports(path: string, follower: SessionFollower) {
  const whole = await inspectSession(path, SESSION_PAGE_INSPECTION);
  return { followed: JSON.stringify(follower.report()), whole: JSON.stringify(whole) };
}

/**
 * Follows `path` written as `before`, then rewritten in place as `after` (the same size): the
 * follower's update reads it whole, and its report equals a whole read's, holding `shown`.
 */
async function followRewrite(path: string, before: string, after: string, shown: string) {
  await Deno.writeTextFile(path, before);
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  await follower.update();
  assert(after !== before && after.length === before.length);
  await Deno.writeTextFile(path, after);
  const read = await follower.update();
  assertEquals([read.whole, read.why], [true, "the file was rewritten in place at the same size"]);
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assert(followed.includes(shown));
}

/** A Claude Code transcript of three questions, and its path in `dir` (not written yet). */
function threeQuestions(dir: string): { path: string; before: string } {
  const b = new ClaudeTranscriptBuilder();
  b.questions(3);
  return { path: join(dir, "7acd37a8-0000-4000-8000-000000000001.jsonl"), before: text(b.lines) };
}

/** The file's lines, cut in `parts` appends at line ends (and a torn line in the middle). */
async function grow(
  source: string,
  target: string,
  parts: number,
  each: (step: number, torn: boolean) => Promise<void>,
) {
  const text = await Deno.readTextFile(source);
  const lines = text.split("\n").filter((line) => line.length > 0);
  await Deno.writeTextFile(target, "");
  let written = 0;
  for (let step = 1; step <= parts; step++) {
    const upTo = Math.round(lines.length * step / parts);
    const chunk = lines.slice(written, upTo);
    written = upTo;
    if (chunk.length === 0) continue;
    const body = chunk.join("\n") + "\n";
    // Half the chunk first, torn in the middle of a line: it waits for its newline.
    const half = Math.floor(body.length / 2);
    await Deno.writeTextFile(target, body.slice(0, half), { append: true });
    if (!body.slice(0, half).endsWith("\n")) await each(step, true);
    await Deno.writeTextFile(target, body.slice(half), { append: true });
    await each(step, false);
  }
}

Deno.test({
  name:
    "SessionFollower.update() of a Claude Code transcript growing a few lines at a time reports what a whole read does (the corpus)",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    await using dir = await tempDir();
    let files = 0;
    for await (const source of corpusFiles(join(CORPUS, "claude"))) {
      if (source.includes("/subagents/")) continue;
      const target = join(dir.path, basename(source));
      let follower: SessionFollower | undefined;
      await grow(source, target, 11, async (step, torn) => {
        // Opened on whole lines: a torn first line tells no format.
        if (torn && follower === undefined) return;
        follower ??= await SessionFollower.open(target, SESSION_PAGE_INSPECTION);
        await follower.update();
        if (torn) return;
        const { followed, whole } = await bothReports(target, follower);
        assertEquals(followed, whole, `${source} after append ${step}`);
      });
      await Deno.remove(target);
      files++;
    }
    assert(files >= 20, `${files} corpus transcripts`);
  },
});

Deno.test("SessionFollower.update() of a Claude Code transcript whose ids a reader of bytes could take wrongly, a line at a time, reports what a whole read does", async () => {
  await using dir = await tempDir();
  const source = join(dir.path, "source.jsonl");
  const target = join(dir.path, "7acd37a8-0000-4000-8000-000000000001.jsonl");
  await Deno.writeTextFile(source, claudeIds());
  let follower: SessionFollower | undefined;
  let compared = 0;
  await grow(source, target, 7, async (step, torn) => {
    if (torn && follower === undefined) return;
    follower ??= await SessionFollower.open(target, SESSION_PAGE_INSPECTION);
    await follower.update();
    if (torn) return;
    const { followed, whole } = await bothReports(target, follower);
    assertEquals(followed, whole, `after append ${step}`);
    compared++;
  });
  assertEquals(compared, 7);
  assertEquals(follower!.report().problems.length, 1, "the damaged line, once");
});

/** A generated transcript of `bytes` (split responses, hooks, parallel calls), as lines. */
const scaleLines = (bytes: number) => [...claudeTranscriptLines({ seed: 7, targetBytes: bytes })];
const text = (lines: readonly string[]) => lines.map((line) => line + "\n").join("");

Deno.test("SessionFollower.update() of a growing Claude Code transcript reads what was appended, not the file, and reports what a whole read does", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "7acd37a8-0000-4000-8000-000000000001.jsonl");
  const lines = scaleLines(1_500_000);
  const head = lines.length - 90;
  await Deno.writeTextFile(path, text(lines.slice(0, head)));
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  assertEquals((await follower.update()).whole, true);
  const revision = follower.revision;
  for (let at = head; at < lines.length; at += 3) {
    const size = (await Deno.stat(path)).size;
    await Deno.writeTextFile(path, text(lines.slice(at, at + 3)), { append: true });
    const appended = (await Deno.stat(path)).size - size;
    using io = countIo();
    const read = await follower.update();
    const bytes = io.take().reads.filter((r) => r.path === path)
      .reduce((sum, r) => sum + r.end - r.start, 0);
    assertEquals(read.whole, false, `after line ${at}: ${read.why}`);
    assert(size > 1_300_000, `a large transcript (${size} bytes)`);
    // The appended lines, the bytes before them that tell an append, and at times a line
    // of the open turn read again.
    assert(bytes < 2 * appended + 16_384, `read ${bytes} bytes for ${appended} appended`);
    if ((at - head) % 30 === 0 || at + 3 >= lines.length) {
      const { followed, whole } = await bothReports(path, follower);
      assertEquals(followed, whole, `after line ${at}`);
    }
  }
  // Nothing read again from the first byte: a page rendered at the start changed nowhere.
  assertEquals(follower.changedSince(revision), Infinity);
});

Deno.test("SessionFollower.update() of a Claude Code rewind (a new prompt off an earlier turn) reads again and says the first turn that changed", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "7acd37a8-0000-4000-8000-000000000001.jsonl");
  const b = new ClaudeTranscriptBuilder();
  const ends = b.questions(4);
  await Deno.writeTextFile(path, text(b.lines.splice(0)));
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  await follower.update();
  const before = follower.revision;
  assertEquals(follower.report().turns.length, 4);
  const turn2Cost = follower.report().turns[1]!.cost;
  // Claude Code's rewind: the next prompt hangs off the end of turn 2, leaving 3 and 4 aside.
  b.user("Question 3 again", { parent: ends[1]! });
  b.assistant([{ text: "Another answer 3" }], { stop: "end_turn" });
  await Deno.writeTextFile(path, text(b.lines.splice(0)), { append: true });
  const read = await follower.update();
  assertEquals(read.whole, true);
  assert(read.why?.includes("a rewind or a fork"), read.why);
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  const turns = follower.report().turns;
  assertEquals(turns.length, 3);
  // A page rendered before the rewind renders again from turn 3, the first that changed: turn 2's
  // cost is its own branch's responses, not those the rewind left aside (the session counts them).
  assertEquals(follower.changedSince(before), 3);
  assertEquals(turns[1]!.cost, turn2Cost);
  assertEquals(follower.report().session.cost?.aside?.responses, 2);
  assertEquals(follower.changedSince(follower.revision), Infinity);
  assertEquals(follower.changedSince("another.0"), 1);
  // Appends after it are read on from there.
  b.user("Question 4 again");
  b.assistant([{ text: "Answer 4 again" }], { stop: "end_turn" });
  await Deno.writeTextFile(path, text(b.lines.splice(0)), { append: true });
  assertEquals((await follower.update()).whole, false);
  const again = await bothReports(path, follower);
  assertEquals(again.followed, again.whole);
});

Deno.test("SessionFollower.update() of a Claude Code transcript rewritten in place at the same size, further back than its last bytes, reads it whole again", async () => {
  await using dir = await tempDir();
  const { path, before } = threeQuestions(dir.path);
  await followRewrite(path, before, before.replace("Question 1", "Question X"), "Question X");
});

Deno.test("SessionFollower.update() of a Claude Code transcript read in the tick of its last write on a file system of seconds, rewritten since in place at the same size and time, reads it whole again", async () => {
  using _seconds = ownTimesOnly();
  await using dir = await tempDir();
  const { path, before } = threeQuestions(dir.path);
  await Deno.writeTextFile(path, before);
  const second = await fatTime(path);
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  await follower.update();
  await rewriteUnseen(path, "Question 1", "Question X", second);
  const read = await follower.update();
  assertEquals(read.whole, true);
  assert(read.why?.includes("in the tick of its last write"), read.why);
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assert(followed.includes("Question X"));
});

Deno.test("SessionFollower.update() of another tool's file whose time was of ms takes a whole second after it as one write in 1,000, not a file system of seconds: the update after reads nothing", async () => {
  await using dir = await tempDir();
  // The file's own times alone: not what its device showed.
  using _own = ownTimesOnly();
  const claude = threeQuestions(dir.path);
  const gemini = {
    path: join(dir.path, `session-2026-02-23T12-00-${GEMINI_SESSION_ID.slice(0, 8)}.jsonl`),
    before: new GeminiSessionBuilder().context().user("Question 1").text(),
  };
  for (const { path, before } of [claude, gemini]) {
    await Deno.writeTextFile(path, before);
    await msTime(path);
    const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
    await follower.update();
    await Deno.writeTextFile(path, before.replace("Question 1", "Question X"));
    await wholeSecondNow(path);
    assertEquals((await follower.update()).whole, true, path);
    // Before, the whole second was taken as a file system of seconds: this update read the
    // file whole again, for doubt alone.
    assertEquals(await follower.update(), { whole: false, bytes: 0 }, path);
    const { followed, whole } = await bothReports(path, follower);
    assertEquals(followed, whole);
    assert(followed.includes("Question X"));
  }
});

Deno.test({
  name:
    "SessionFollower.update() of a Codex rollout growing a few lines at a time reports what a whole read does (the corpus)",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    await using dir = await tempDir();
    let files = 0;
    for await (const source of corpusFiles(join(CORPUS, "codex"))) {
      const target = join(dir.path, basename(source));
      let follower: SessionFollower | undefined;
      await grow(source, target, 11, async (step, torn) => {
        if (torn && follower === undefined) return;
        follower ??= await SessionFollower.open(target, SESSION_PAGE_INSPECTION);
        await follower.update();
        if (torn) return;
        const { followed, whole } = await bothReports(target, follower);
        assertEquals(followed, whole, `${source} after append ${step}`);
      });
      await Deno.remove(target);
      files++;
    }
    assert(files >= 5, `${files} corpus rollouts`);
  },
});

Deno.test("SessionFollower.update() of a growing Codex rollout reads what was appended, not the file, and reports what a whole read does", async () => {
  await using dir = await tempDir();
  const path = join(
    dir.path,
    "rollout-2026-02-23T12-00-00-5b1e0c4e-0000-4000-8000-000000000001.jsonl",
  );
  const lines = [...codexRolloutLines({ seed: 7, targetBytes: 1_500_000 })];
  const head = lines.length - 60;
  await Deno.writeTextFile(path, text(lines.slice(0, head)));
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  assertEquals((await follower.update()).whole, true);
  for (let at = head; at < lines.length; at += 2) {
    const size = (await Deno.stat(path)).size;
    await Deno.writeTextFile(path, text(lines.slice(at, at + 2)), { append: true });
    const appended = (await Deno.stat(path)).size - size;
    using io = countIo();
    const read = await follower.update();
    const bytes = io.take().reads.filter((r) => r.path === path)
      .reduce((sum, r) => sum + r.end - r.start, 0);
    assertEquals(read.whole, false, `after line ${at}: ${read.why}`);
    assert(size > 1_300_000, `a large rollout (${size} bytes)`);
    assert(bytes < 2 * appended + 256, `read ${bytes} bytes for ${appended} appended`);
    if ((at - head) % 20 === 0 || at + 2 >= lines.length) {
      const { followed, whole } = await bothReports(path, follower);
      assertEquals(followed, whole, `after line ${at}`);
    }
  }
});

Deno.test("SessionFollower.update() of a Codex rollout rewritten in place at the same size, further back than its last bytes, reads it whole again", async () => {
  await using dir = await tempDir();
  const path = join(
    dir.path,
    "rollout-2026-02-23T12-00-00-5b1e0c4e-0000-4000-8000-000000000001.jsonl",
  );
  const before = text([...codexRolloutLines({ seed: 7, targetBytes: 20_000 })]);
  const words = "alpha theta zeta epsilon delta";
  await followRewrite(path, before, before.replaceAll(words, words.toUpperCase()), "ALPHA THETA");
});

Deno.test("SessionFollower.update() of a Codex fork's rollout (its history in its parent's) reads it whole on each change, as a whole read does", async () => {
  await using dir = await tempDir();
  const { paths } = await forkHome(dir.path);
  for (const path of [paths.fork, paths.fork2, paths.orphan]) {
    const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
    assertEquals((await follower.update()).whole, true);
    let reports = await bothReports(path, follower);
    assertEquals(reports.followed, reports.whole, path);
    await Deno.writeTextFile(
      path,
      (await Deno.readTextFile(paths.parent)).split("\n").at(-2)! + "\n",
      {
        append: true,
      },
    );
    assertEquals((await follower.update()).whole, true);
    reports = await bothReports(path, follower);
    assertEquals(reports.followed, reports.whole, path);
  }
});

Deno.test("SessionFollower.changedSince() of a Gemini session whose later line rewrites an earlier turn names that turn", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, `session-2026-02-23T12-00-${GEMINI_SESSION_ID.slice(0, 8)}.jsonl`);
  const ids: string[] = [];
  const b = new GeminiSessionBuilder().user("first", ids).gemini({ text: "one" }, ids)
    .user("second", ids).gemini({ text: "two" }, ids).user("third", ids)
    .gemini({ text: "three" }, ids);
  await Deno.writeTextFile(path, b.text());
  const follower = await SessionFollower.open(path, SESSION_PAGE_INSPECTION);
  await follower.update();
  assertEquals(follower.report().turns.length, 3);
  const before = follower.revision;
  // The second answer written again (the last copy of a message wins, where it first came).
  await Deno.writeTextFile(
    path,
    JSON.stringify({ id: ids[3], timestamp: b.time(), type: "gemini", content: "two, edited" }) +
      "\n",
    { append: true },
  );
  assertEquals((await follower.update()).whole, true);
  const { followed, whole } = await bothReports(path, follower);
  assertEquals(followed, whole);
  assert(followed.includes("two, edited"));
  // A page rendered before renders again from turn 2, the first that changed.
  assertEquals(follower.changedSince(before), 2);
});
