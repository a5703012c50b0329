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
