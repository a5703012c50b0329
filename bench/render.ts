/**
 * The benchmark's figures as text: the Markdown table the README shows, the notes under it and
 * the machine line.
 *
 * @module
 */
import { type BenchResults, mb } from "./figures.ts";

const fixed = (ms: number) =>
  Number.isNaN(ms) ? "-" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);

const verdict = (pass: boolean | null) => pass === null ? "" : pass ? "PASS" : "MISS";

/** The results as a Markdown table. */
export function renderTable(results: BenchResults): string {
  const rows: string[] = [
    "| benchmark | variant | median ms | min ms | max ms | CPU ms | MB/s | peak RSS | RSS growth | measured | target | result |",
    "|---|---|--:|--:|--:|--:|--:|--:|--:|---|---|---|",
  ];
  for (const bench of results.benchmarks) {
    bench.variants.forEach((v, index) => {
      const first = index === 0 && bench.target !== null;
      rows.push(
        `| ${index === 0 ? bench.name : ""} | ${
          v.error ? `${v.name}: failed (${v.error})` : v.name
        } | ${fixed(v.medianMs)} | ${fixed(v.minMs)} | ${fixed(v.maxMs)} | ${
          fixed(v.cpuMedianMs)
        } | ${
          v.throughputMBs === null || Number.isNaN(v.throughputMBs)
            ? ""
            : v.throughputMBs.toFixed(0)
        } | ${mb(v.peakRssBytes)} | ${v.wholeProcess ? "-" : mb(v.peakRssDeltaBytes)} | ${
          first ? bench.target!.shown : ""
        } | ${first ? bench.target!.description : ""} | ${
          first ? verdict(bench.target!.pass) : ""
        } |`,
      );
    });
  }
  return rows.join("\n");
}

/** The notes of every benchmark, as a Markdown list. */
export function renderNotes(results: BenchResults): string {
  return results.benchmarks.flatMap((b) => b.notes.map((n) => `- ${b.name}: ${n}`)).join("\n");
}

/** The machine line shown under the table. */
export function renderMachine(results: BenchResults): string {
  const m = results.machine;
  return `${m.cpu}, ${m.cores} cores, ${
    (m.memoryBytes / (1 << 30)).toFixed(1)
  } GiB RAM, ${m.os}, ` +
    `Deno ${m.deno} (V8 ${m.v8}); load average ${m.loadAverageStart[0]?.toFixed(2)} at start, ` +
    `${m.loadAverageEnd[0]?.toFixed(2)} at end; ${results.date}; ${results.durationSeconds} s; ` +
    `sizes ${results.options.sizes.join(", ")}, ${results.options.rounds} rounds, ` +
    `process at rest ${mb(results.baselineRssBytes)}`;
}

/** Where docs/benchmarks.md's generated results start and end. */
export const RESULTS_START =
  "<!-- The results below are written by ./denow task bench from bench/results.json: do not edit. -->";
/** The line after the generated results. */
export const RESULTS_END = "<!-- End of the results written by ./denow task bench. -->";

/** The results as the section docs/benchmarks.md shows: the machine, the table, the notes. */
export function renderResultsSection(results: BenchResults): string {
  const notes = renderNotes(results);
  return [
    RESULTS_START,
    "",
    `\`bench/results.json\`, ${renderMachine(results)}.`,
    "",
    renderTable(results),
    "",
    ...(notes ? ["Notes of this run:", "", notes, ""] : []),
    RESULTS_END,
  ].join("\n");
}

/**
 * `doc` with its generated results replaced by `results`' (the section between the markers);
 * undefined when the document has no such section.
 */
export function withResults(doc: string, results: BenchResults): string | undefined {
  const start = doc.indexOf(RESULTS_START);
  const end = doc.indexOf(RESULTS_END);
  if (start === -1 || end < start) return undefined;
  return doc.slice(0, start) + renderResultsSection(results) + doc.slice(end + RESULTS_END.length);
}
