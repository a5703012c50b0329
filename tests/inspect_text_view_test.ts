import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { evalWithGc, tempDir } from "./_helpers.ts";
import { makeStory, splitLines, strayOutputLine } from "./_inspect_fixtures.ts";
import {
  inspectSession,
  type RenderOptions,
  renderReport,
  writeReportText,
} from "../src/inspect/mod.ts";
import { endLines, layoutOf } from "../src/inspect/_render_report.ts";
import { makeRecord } from "../src/record/mod.ts";
import { generateSessionText, writeSession } from "../testing/generate/mod.ts";
import { CLAUDE_FIXTURES } from "../testing/formats/claude_fixtures.ts";
import { CODEX_FIXTURES } from "../testing/formats/codex_fixtures.ts";

/** The streamed view, its pieces joined, and the report it returned. */
async function streamed(path: string, render: RenderOptions, textLimit?: number) {
  let text = "";
  let count = 0;
  const report = await writeReportText(path, {
    render,
    ...(textLimit ? { textLimit } : {}),
    write: (piece) => {
      text += piece;
      count++;
    },
  });
  return { text, count, report };
}

/** The view made the old way: one report with every entry, rendered at once. */
async function whole(path: string, render: RenderOptions, textLimit?: number) {
  const report = await inspectSession(path, { entries: true, ...(textLimit ? { textLimit } : {}) });
  return renderReport(report, render);
}

Deno.test("writeReportText() streams the very text renderReport makes, on generated sessions of every kind", async () => {
  await using dir = await tempDir();
  let damaged = 0;
  let orphans = 0;
  for (let seed = 1; seed <= 40; seed++) {
    const generated = generateSessionText(seed, {
      checkpoints: seed % 3 === 0 ? 0 : 0.3,
      damage: seed % 2 === 0,
    });
    const path = `${dir.path}/s${seed}.jsonl`;
    await Deno.writeTextFile(path, generated.text);
    for (const render of [{ color: false }, { color: true, textChars: 40, textLines: 2 }]) {
      const { text, report } = await streamed(path, render);
      assertStrictEquals(text, await whole(path, render), `seed ${seed}`);
      assertEquals(report.healthy, (await inspectSession(path)).healthy);
    }
    if (generated.corruptLines > 0 || generated.tornTail) damaged++;
    if (generated.orphanCalls > 0) orphans++;
  }
  // The sessions must hold the cases the view marks late (orphans, damage), or this proves less.
  assert(damaged >= 5 && orphans >= 5, `${damaged} damaged, ${orphans} with orphan calls`);
});

Deno.test("writeReportText() shows an output in a later turn, a dropped output and an orphan call as the whole report does", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const lines = splitLines(await Deno.readFile(story.path)).map((l) => new TextDecoder().decode(l));
  // A stray output before the first turn, and a later turn whose synthesized output answers a
  // call of an earlier turn.
  const later = makeRecord("turn_context", {
    runId: "r-late",
    model: "m",
    wireApi: "chat",
    policy: { approval: "auto" },
    resumed: true,
  });
  const text = [
    lines[0]!,
    strayOutputLine(),
    ...lines.slice(1),
    JSON.stringify(later),
    // After the story's checkpoint: an output resume drops.
    strayOutputLine("yy"),
  ].join("\n") + "\n";
  await Deno.writeTextFile(story.path, text);
  for (const textLimit of [undefined, 5]) {
    const { text: view, count } = await streamed(story.path, { color: false }, textLimit);
    assertStrictEquals(view, await whole(story.path, { color: false }, textLimit));
    assert(view.includes("orphan output: no call before it, resume drops it"), view);
    assert(view.includes("↳ output at line"), view);
    assert(count >= 3, `${count} pieces: the header, the turns, the end`);
  }
});

Deno.test("writeReportText() of a file without turns says so, like the whole report", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(path, "not json\n");
  const { text } = await streamed(path, { color: false });
  assertStrictEquals(text, await whole(path, { color: false }));
  assert(text.includes("(no turns)"));
});

Deno.test("writeReportText() writes the header, one piece per turn, and the end", async () => {
  await using dir = await tempDir();
  const session = await writeSession(dir.path, { seed: 5, turns: 12 });
  const turns = (await inspectSession(session.path)).turns.length;
  const seen: string[] = [];
  await writeReportText(session.path, {
    render: { color: false },
    write: (piece) => void seen.push(piece),
  });
  // The header, one piece per turn (a turn's lines in one piece), and the end.
  assertEquals(seen.length, turns + 2);
  for (const [index, piece] of seen.slice(1, -1).entries()) {
    assert(piece.startsWith(`━━ Turn ${index + 1} `), piece.slice(0, 40));
  }
});

Deno.test("writeReportText() keeps no turn's entries once it is written: the heap stays flat while the turns go by", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/many.jsonl`;
  const lines: string[] = [];
  for (let turn = 0; turn < 40; turn++) {
    lines.push(JSON.stringify(makeRecord("turn_context", {
      runId: `r${turn}`,
      model: "m",
      wireApi: "chat",
      policy: { approval: "auto" },
      resumed: false,
    })));
    for (let i = 0; i < 150; i++) {
      const content = `${turn}.${i} ${"z".repeat(200)}`;
      lines.push(
        JSON.stringify(makeRecord("response_item", { type: "message", role: "user", content })),
      );
    }
  }
  await Deno.writeTextFile(path, lines.join("\n") + "\n");
  // In a child with a callable gc: the live heap at every piece written, and the heap a
  // report holding every turn's entries takes, for scale.
  const inspect = JSON.stringify(new URL("../src/inspect/mod.ts", import.meta.url).href);
  const script = `
    import { inspectSession, writeReportText } from ${inspect};
    const live = () => (globalThis.gc(), Deno.memoryUsage().heapUsed);
    const heaps = [];
    await writeReportText(${JSON.stringify(path)}, {
      render: { color: false },
      write: () => void heaps.push(live()),
    });
    const before = live();
    const report = await inspectSession(${JSON.stringify(path)}, { entries: true });
    const held = live() - before;
    const entries = report.turns.reduce((n, turn) => n + turn.entries.length, 0);
    console.log(JSON.stringify({ heaps, held, entries }));
  `;
  const { heaps, held, entries } = await evalWithGc(script) as {
    heaps: number[];
    held: number;
    entries: number;
  };
  assertEquals(entries, 40 * 150);
  assertEquals(heaps.length, 40 + 2, "the header, one piece per turn, the end");
  // Kept entries would grow the heap by a fortieth of `held` with every turn.
  const grown = heaps.at(-2)! - heaps[1]!;
  assert(
    grown < held / 4,
    `the heap grew ${(grown / 1e6).toFixed(2)} MB over 40 turns; all entries take ${
      (held / 1e6).toFixed(2)
    } MB`,
  );
});

Deno.test("writeReportText() of a Codex rollout and a Claude Code transcript is the whole report's text", async () => {
  await using dir = await tempDir();
  const fixtures = [
    ...Object.entries(CODEX_FIXTURES).map(([name, make]) => [`codex-${name}`, make] as const),
    ...Object.entries(CLAUDE_FIXTURES).map(([name, make]) => [`claude-${name}`, make] as const),
  ];
  for (const [name, make] of fixtures) {
    const path = `${dir.path}/${name}.jsonl`;
    await Deno.writeTextFile(path, make());
    const { text } = await streamed(path, { color: false });
    assertStrictEquals(text, await whole(path, { color: false }), name);
  }
  assert(fixtures.length >= 10, `${fixtures.length} fixtures`);
});

Deno.test("endLines() of 200,000 turns, and renderReport() of 200,000 problems, fit the stack (no spread into Math.max)", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const small = await inspectSession(story.path);
  const turn = small.turns[0]!;
  const manyTurns = {
    ...small,
    turns: Array.from({ length: 200_000 }, (_, i) => ({ ...turn, index: i + 1 })),
  };
  // The table after the turns, as the streamed view writes it (the blocks are not the point).
  const table = endLines(manyTurns, layoutOf(manyTurns, { color: false }));
  assert(table.some((line) => line.startsWith(`  200000  ${turn.startLine}-`)), "the last row");
  const problem = {
    kind: "malformed_json" as const,
    line: 9_999_999,
    message: `${story.path}:9999999: not JSON`,
    turn: null,
    start: null,
    end: null,
  };
  const manyProblems = { ...small, problems: Array.from({ length: 200_000 }, () => problem) };
  assert(renderReport(manyProblems, { color: false }).includes("Problems (200000)"));
});
