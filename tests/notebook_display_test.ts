import { synthesizedOutputFor } from "../src/history/mod.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import {
  chartBundle,
  eventRows,
  maskPaths,
  type MimeBundle,
  recordRows,
  shortId,
  show,
  showSvg,
  showTable,
  svgBundle,
  svgToPng,
  tableBundle,
} from "../src/notebook/mod.ts";
import { oneLine } from "../src/text/mod.ts";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";

Deno.test("tableBundle renders HTML, Markdown and plain text, values escaped", () => {
  const bundle = tableBundle(
    [
      { kind: "message", count: 12, note: "a <b> & c|d" },
      { kind: "function_call", count: 3, note: null },
    ],
    { caption: "Records by kind" },
  );
  assertStrictEquals(
    bundle["text/html"],
    "<table><caption>Records by kind</caption><thead><tr><th>kind</th><th>count</th>" +
      "<th>note</th></tr></thead><tbody><tr><td>message</td>" +
      '<td style="text-align:right">12</td><td>a &lt;b&gt; &amp; c|d</td></tr>' +
      '<tr><td>function_call</td><td style="text-align:right">3</td><td></td></tr>' +
      "</tbody></table>",
  );
  assertStrictEquals(
    bundle["text/markdown"],
    [
      "Records by kind\n",
      "| kind | count | note |",
      "| --- | ---: | --- |",
      "| message | 12 | a &lt;b> & c\\|d |",
      "| function_call | 3 |  |",
    ].join("\n"),
  );
  assertStrictEquals(
    bundle["text/plain"],
    [
      "Records by kind",
      "kind           count  note",
      "-------------  -----  -----------",
      "message           12  a <b> & c|d",
      "function_call      3",
    ].join("\n"),
  );
});

Deno.test("tableBundle keeps the given columns in order and flattens line breaks", () => {
  const bundle = tableBundle([{ a: 1, b: "two\nlines", c: true }], { columns: ["c", "b"] });
  assertStrictEquals(bundle["text/markdown"], "| c | b |\n| --- | --- |\n| true | two lines |");
});

Deno.test("svgBundle offers the chart and its title as text", () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg"><title>Records per turn</title></svg>';
  assertEquals(svgBundle(svg), { "image/svg+xml": svg, "text/plain": "[chart: Records per turn]" });
});

/** A small chart: a title, a bar and a label. */
const CHART = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20"><title>T</title>' +
  '<rect x="2" y="2" width="20" height="10" fill="steelblue"/><text x="2" y="19">T</text></svg>';

/** The width and height a PNG's header gives. */
function pngSize(png: Uint8Array): [number, number] {
  const view = new DataView(png.buffer, png.byteOffset);
  return [view.getUint32(16), view.getUint32(20)];
}

Deno.test("chartBundle carries the SVG, a PNG of it at its size, and the SVG inline as HTML", async () => {
  const bundle = await chartBundle(CHART);
  assertStrictEquals(bundle["image/svg+xml"], CHART);
  assertStrictEquals(bundle["text/plain"], "[chart: T]");
  assertStrictEquals(bundle["text/html"], `<div class="turnlog-chart-output">${CHART}</div>`);
  const png = Uint8Array.from(atob(bundle["image/png"] ?? ""), (c) => c.charCodeAt(0));
  assertEquals([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assertEquals(pngSize(png), [40, 20]);
  // The same chart gives the same bytes: a notebook re-run changes nothing.
  assertStrictEquals((await chartBundle(CHART))["image/png"], bundle["image/png"]);
  // The bar is drawn: the PNG differs from that of the chart without it.
  const bare = await svgToPng(CHART.replace(/<rect[^>]*\/>/, ""));
  assert(bare.length !== png.length || bare.some((byte, i) => byte !== png[i]));
});

Deno.test("show displays the bundle and resolves only after the settle time", async () => {
  const shown: MimeBundle[] = [];
  let settled = false;
  const pending = show({ "text/plain": "hi" }, {
    display: (bundle) => {
      shown.push(bundle);
    },
    settleMs: 30,
  }).then(() => settled = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assertEquals(shown, [{ "text/plain": "hi" }]);
  assert(!settled, "show resolved before its settle time");
  await pending;
  assert(settled);
});

Deno.test("showSvg and showTable hand their bundles to the display", async () => {
  const shown: MimeBundle[] = [];
  const display = (bundle: MimeBundle) => {
    shown.push(bundle);
  };
  await showSvg(CHART, { display, settleMs: 0 });
  await showTable([{ x: 1 }], { display, settleMs: 0 });
  assertStrictEquals(shown.length, 2);
  assertStrictEquals(shown[0]?.["text/plain"], "[chart: T]");
  assertStrictEquals(shown[1]?.["text/markdown"], "| x |\n| ---: |\n| 1 |");
});

Deno.test("recordRows numbers the lines and says what each record holds", () => {
  const rows = recordRows([
    makeRecord("turn_context", {
      runId: "01a22a6b-0000-7000-8000-000000001ca9",
      model: "scripted",
      wireApi: "responses",
      policy: { approval: "auto" },
      resumed: true,
    }),
    responseItemRecord({ type: "function_call", callId: "c1", name: "slow_task", arguments: "{}" }),
    responseItemRecord(synthesizedOutputFor({
      type: "function_call",
      callId: "c1",
      name: "slow_task",
      arguments: "{}",
    })),
  ], { firstLine: 9 });
  assertEquals(rows.map((row) => [row.line, row.record]), [
    [9, "turn_context"],
    [10, "response_item/function_call"],
    [11, "response_item/function_call_output"],
  ]);
  assertStrictEquals(
    rows[0]?.what,
    "run 01a22a6b…1ca9, resumed, model scripted, policy auto",
  );
  assertStrictEquals(rows[1]?.what, "call slow_task {} (c1)");
  assertMatch(
    rows[2]?.what ?? "",
    /^output of slow_task \(c1\), SYNTHESIZED, error: Error \[SESSION_RESUME_INTERRUPTED\]/,
  );
});

Deno.test("eventRows leaves out the streamed pieces and keeps the request sizes", () => {
  const rows = eventRows([
    { type: "model_requested", round: 1, messageCount: 6 },
    { type: "assistant_delta", text: "he" },
    { type: "assistant_message", round: 1, text: "hello" },
    {
      type: "tool_finished",
      callId: "c1",
      name: "read_file",
      isError: true,
      output: "no\nsuch file",
    },
  ]);
  assertEquals(rows, [
    { event: "model_requested", what: "round 1: 6 history items sent to the model" },
    { event: "assistant_message", what: "hello" },
    { event: "tool_finished", what: "read_file failed: no such file" },
  ]);
});

Deno.test("maskPaths names the longest path first; oneLine and shortId shorten", () => {
  assertStrictEquals(
    maskPaths('{"cwd":"/tmp/x/ws","file":"/tmp/x/ws2/a"}', {
      "/tmp/x/ws": "<ws>",
      "/tmp/x/ws2": "<b>",
    }),
    '{"cwd":"<ws>","file":"<b>/a"}',
  );
  assertStrictEquals(oneLine("a  b\nc", 80), "a b c");
  assertStrictEquals(oneLine("abcdef", 4), "abc…");
  assertStrictEquals(shortId("01a22a69-f7b5-7170-b931-e3a465a8bf93"), "01a22a69…bf93");
});
