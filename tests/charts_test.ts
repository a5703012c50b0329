import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import { SvgDocument } from "../src/charts/_svg_dom.ts";
import {
  countRecordsPerTurn,
  historySizeChart,
  historySizePerTurn,
  type HistorySizePoint,
  type RecordCountRow,
  recordCountRows,
  recordsPerTurnChart,
} from "../src/charts/mod.ts";
import { synthesizedOutputFor } from "../src/history/mod.ts";
import { makeRecord, responseItemRecord, type SessionRecord } from "../src/record/mod.ts";
import { assert, assertEquals, assertStrictEquals } from "./_assert.ts";
import { assistant, call, output, user } from "./_helpers.ts";

interface Node {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): Node[];
  querySelector(selector: string): Node | null;
}

/** The chart parsed back, as a reader of the SVG sees it. */
function parseSvg(svg: string): Node {
  const { document } = parseHTML(`<!doctype html><html><body>${svg}</body></html>`) as unknown as {
    document: Node;
  };
  const root = document.querySelector("svg");
  assert(root !== null, "no <svg> element");
  return root;
}

function texts(root: Node): string[] {
  return root.querySelectorAll("text").map((node) => node.textContent ?? "");
}

const meta = makeRecord("session_meta", {
  version: 1,
  id: "s1",
  createdAt: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
  modelProvider: "embedded",
  model: "scripted",
  wireApi: "responses",
  policy: { approval: "auto" },
});
const turn = (runId: string) =>
  makeRecord("turn_context", {
    runId,
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
    resumed: runId !== "r1",
  });
const finished = (runId: string) =>
  makeRecord("run_finished", { runId, outcome: "succeeded", rounds: 1 });

/** Two turns, then a third whose compaction replaces eight items with three. */
const SESSION: SessionRecord[] = [
  meta,
  turn("r1"),
  ...[user("list"), call("c1"), output("c1"), assistant("two files")].map((item) =>
    responseItemRecord(item)
  ),
  finished("r1"),
  turn("r2"),
  ...[user("read"), call("c2"), output("c2"), assistant("done")].map((item) =>
    responseItemRecord(item)
  ),
  finished("r2"),
  turn("r3"),
  responseItemRecord(user("and now?")),
  responseItemRecord({
    type: "compaction_checkpoint",
    version: 1,
    reason: "threshold",
    tokensBefore: 900,
    removedItemCount: 7,
    keptItemCount: 1,
    replacementHistory: [
      { type: "compaction_summary", content: "Listed and read files." },
      user("and now?"),
    ],
  }),
  responseItemRecord(assistant("here")),
  finished("r3"),
];

Deno.test("countRecordsPerTurn counts each turn's records by kind, the header in turn 1", () => {
  assertEquals(countRecordsPerTurn(SESSION), [
    { turn: 1, kind: "session_meta", count: 1 },
    { turn: 1, kind: "turn_context", count: 1 },
    { turn: 1, kind: "message", count: 2 },
    { turn: 1, kind: "function_call", count: 1 },
    { turn: 1, kind: "function_call_output", count: 1 },
    { turn: 1, kind: "run_finished", count: 1 },
    { turn: 2, kind: "turn_context", count: 1 },
    { turn: 2, kind: "message", count: 2 },
    { turn: 2, kind: "function_call", count: 1 },
    { turn: 2, kind: "function_call_output", count: 1 },
    { turn: 2, kind: "run_finished", count: 1 },
    { turn: 3, kind: "turn_context", count: 1 },
    { turn: 3, kind: "message", count: 2 },
    { turn: 3, kind: "compaction_checkpoint", count: 1 },
    { turn: 3, kind: "run_finished", count: 1 },
  ]);
});

Deno.test("recordCountRows reads the inspector's counts, header added to the first turn", () => {
  const rows = recordCountRows(
    [
      { index: 1, counts: { turn_context: 1, message: 2, run_finished: 1, total: 4 } },
      { index: 2, counts: { turn_context: 1, function_call: 1, problem_lines: 1, total: 3 } },
    ],
    { header: { session_meta: 1, total: 1 } },
  );
  assertEquals(rows, [
    { turn: 1, kind: "session_meta", count: 1 },
    { turn: 1, kind: "turn_context", count: 1 },
    { turn: 1, kind: "message", count: 2 },
    { turn: 1, kind: "run_finished", count: 1 },
    { turn: 2, kind: "turn_context", count: 1 },
    { turn: 2, kind: "function_call", count: 1 },
    { turn: 2, kind: "problem_lines", count: 1 },
  ]);
});

Deno.test("historySizePerTurn measures the history at each turn's end and before a checkpoint", () => {
  assertEquals(historySizePerTurn(SESSION), [
    { turn: 1, items: 4, moment: "end of turn" },
    { turn: 2, items: 8, moment: "end of turn" },
    { turn: 3, items: 9, moment: "before compaction" },
    { turn: 3, items: 3, moment: "end of turn" },
  ]);
});

Deno.test("recordsPerTurnChart draws one bar segment per row, sized by its count", () => {
  const rows: RecordCountRow[] = [
    { turn: 1, kind: "turn_context", count: 1 },
    { turn: 1, kind: "message", count: 2 },
    { turn: 2, kind: "turn_context", count: 1 },
    { turn: 2, kind: "message", count: 4 },
    { turn: 2, kind: "function_call", count: 3 },
  ];
  const root = parseSvg(recordsPerTurnChart(rows, { subtitle: "What each turn appended" }));
  const bars = root.querySelectorAll('g[aria-label="bar"] rect');
  assertStrictEquals(bars.length, rows.length);
  const heights = bars.map((bar) => Number(bar.getAttribute("height")));
  // Same scale for every segment: 4 messages are twice as tall as 2, 3 calls three times 1.
  const [turn1Context, turn1Messages, , turn2Messages, turn2Calls] = heights as [
    number,
    number,
    number,
    number,
    number,
  ];
  assert(Math.abs(turn1Messages - 2 * turn1Context) < 0.01, `heights ${heights}`);
  assert(Math.abs(turn2Messages - 2 * turn1Messages) < 0.01, `heights ${heights}`);
  assert(Math.abs(turn2Calls - 3 * turn1Context) < 0.01, `heights ${heights}`);
  // Each kind its own colour.
  assertStrictEquals(new Set(bars.map((bar) => bar.getAttribute("fill"))).size, 3);

  const words = texts(root);
  assert(words.includes("Records written per turn"), "title");
  assert(words.includes("What each turn appended"), "subtitle");
  assert(words.some((text) => text.startsWith("Turn (one run of the agent)")), "x label");
  assert(words.some((text) => text.includes("Records in the session file")), "y label");
  // The totals over the bars, and a legend entry per kind shown, none for others.
  assert(words.includes("3") && words.includes("8"), `totals in ${words}`);
  for (const label of ["turn context", "message", "tool call"]) {
    assert(words.includes(label), `legend ${label}`);
  }
  assert(!words.includes("tool output"), "no legend entry for a kind without records");
  assertStrictEquals(root.querySelector("title")?.textContent, "Records written per turn");
});

Deno.test("charts are standalone SVG on white, and the same data gives the same bytes", () => {
  const rows: RecordCountRow[] = [{ turn: 1, kind: "message", count: 2 }];
  const svg = recordsPerTurnChart(rows, { title: "Custom" });
  assert(svg.startsWith("<svg"), svg.slice(0, 40));
  assert(svg.includes('xmlns="http://www.w3.org/2000/svg"'));
  assert(svg.includes('fill="white"'));
  assertStrictEquals(recordsPerTurnChart(rows, { title: "Custom" }), svg);
  assertStrictEquals(parseSvg(svg).querySelector("title")?.textContent, "Custom");
});

Deno.test("historySizeChart draws every point and marks the compaction", () => {
  const points: HistorySizePoint[] = [
    { turn: 1, items: 4, moment: "end of turn" },
    { turn: 2, items: 8, moment: "end of turn" },
    { turn: 3, items: 12, moment: "before compaction" },
    { turn: 3, items: 3, moment: "end of turn" },
    { turn: 4, items: 7, moment: "end of turn" },
  ];
  const root = parseSvg(historySizeChart(points));
  const dots = root.querySelectorAll('g[aria-label="dot"] circle');
  assertStrictEquals(dots.length, points.length);
  // Higher value, higher on the page (smaller y): the drop at the checkpoint is visible.
  const ys = dots.map((dot) => Number(dot.getAttribute("cy")));
  assert(ys[2]! < ys[1]! && ys[3]! > ys[2]! && ys[3]! > ys[0]!, `dot ys ${ys}`);
  assertStrictEquals(root.querySelectorAll('g[aria-label="line"] path').length, 1);
  assertStrictEquals(root.querySelectorAll('g[aria-label="rule"] line').length >= 1, true);
  const words = texts(root);
  assert(words.includes("What the model sees, turn by turn"), "title");
  assert(words.includes("compaction checkpoint"), "checkpoint marked");
  assert(words.includes("history just before a compaction"), "legend");
  assert(words.some((text) => text.includes("Items in the model-visible history")), "y label");
  assert(words.some((text) => text.startsWith("Turn (one run of the agent)")), "x label");
  for (const value of ["4", "8", "12", "3", "7"]) assert(words.includes(value), `value ${value}`);
});

Deno.test("historySizeChart without a compaction shows no checkpoint", () => {
  const words = texts(parseSvg(historySizeChart([
    { turn: 1, items: 2, moment: "end of turn" },
    { turn: 2, items: 5, moment: "end of turn" },
  ])));
  assert(!words.includes("compaction checkpoint"));
  assert(!words.includes("history just before a compaction"));
});

Deno.test("a synthesized output is its own kind, counted from records or from the report", () => {
  const records: SessionRecord[] = [
    meta,
    turn("r1"),
    responseItemRecord(call("c1", "slow_task")),
    turn("r2"),
    responseItemRecord(synthesizedOutputFor({
      type: "function_call",
      callId: "c1",
      name: "slow_task",
      arguments: "{}",
    })),
    responseItemRecord(output("c2")),
  ];
  assertEquals(countRecordsPerTurn(records).filter((row) => row.turn === 2), [
    { turn: 2, kind: "turn_context", count: 1 },
    { turn: 2, kind: "function_call_output", count: 1 },
    { turn: 2, kind: "synthesized_output", count: 1 },
  ]);
  assertEquals(
    recordCountRows([{ index: 2, counts: { turn_context: 1, function_call_output: 2 } }], {
      synthesized: [{ turn: 2 }, { turn: 5 }],
    }),
    [
      { turn: 2, kind: "turn_context", count: 1 },
      { turn: 2, kind: "function_call_output", count: 1 },
      { turn: 2, kind: "synthesized_output", count: 1 },
    ],
  );
  const words = texts(parseSvg(recordsPerTurnChart(countRecordsPerTurn(records))));
  assert(words.includes("synthesized tool output"), "legend names the synthesized output");
});

/** One Plot chart of every mark turnlog draws, on `document`, with text that needs escaping. */
function everyMark(document: unknown): string {
  const rows = [1, 2, 3].flatMap((turn) =>
    ["message", "tool & <call>"].map((kind) => ({ turn, kind, count: turn * 1234 }))
  );
  const plot = Plot.plot({
    document: document as Plot.PlotOptions["document"],
    className: "c",
    style: { fontSize: "12px", fontFamily: `"A B", sans-serif`, background: "white" },
    x: { type: "band", tickFormat: "d", label: "Turn \xA0>" },
    y: { grid: true, label: `"items"` },
    marks: [
      Plot.barY(rows, { x: "turn", y: "count", fill: "kind", title: (row) => `${row.kind} 'q'` }),
      Plot.text(rows, Plot.groupX({ y: "sum", text: "sum" }, { x: "turn", y: "count", dy: -8 })),
      Plot.line(rows, { x: "turn", y: "count", stroke: "#4269d0" }),
      Plot.dot(rows, { x: "turn", y: "count", r: 4, title: (row) => `turn ${row.turn}` }),
      Plot.ruleX([2], { strokeDasharray: "5,4" }),
      Plot.text([2], { x: (turn) => turn, frameAnchor: "top", text: () => "a & b", dx: 6 }),
      Plot.ruleY([0]),
    ],
  }) as unknown as { outerHTML: string };
  return plot.outerHTML;
}

Deno.test("the charts' own DOM writes the very bytes linkedom writes, for every mark they draw", () => {
  const { document: linked } = parseHTML(
    "<!doctype html><html><body></body></html>",
  ) as unknown as {
    document: unknown;
  };
  const svg = everyMark(new SvgDocument());
  assertStrictEquals(svg, everyMark(linked));
  for (
    const escaped of ["tool &amp; &lt;call&gt;", "Turn &#160;&gt;", "font-family:&quot;A B&quot;"]
  ) {
    assert(svg.includes(escaped), escaped);
  }
});
