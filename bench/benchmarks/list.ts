/**
 * List the store's newest 25 sessions: turnlog's `listSessions` (what `inspect --list` runs:
 * it opens each listed file once and counts its lines and turns) against the naive listing
 * that reads the first line of every file, then the 25 again.
 *
 * @module
 */
import type { VariantFigures } from "../figures.ts";
import { formatRatio } from "../figures.ts";
import { type BenchmarkDefinition, JUDGED_FROM, target } from "./_definition.ts";

/** The newest 25, newest first, each listed file opened once and nothing else read. */
export const listNewest: BenchmarkDefinition = {
  plan: ({ options, store }) => [{
    name: `list newest 25 (${store.count} sessions)`,
    fileBytes: 0,
    progress: `List the newest 25 of ${store.count} sessions...`,
    rounds: options.rounds,
    variants: [
      {
        name: "turnlog listSessions",
        task: { kind: "list", root: store.root },
        warmup: 2,
        iterations: 3,
      },
      {
        name: "naive (every file, then the 25 again)",
        task: { kind: "list_naive", root: store.root },
        warmup: 0,
        iterations: 1,
      },
    ],
    judge(figures) {
      const [list, naive] = figures as [VariantFigures, VariantFigures];
      const io = list.io;
      const right = list.check === store.newestIds.join(",");
      const faster = naive.medianMs / list.medianMs;
      // Each listed file opened once and read once (its lines and turns are counted), and
      // nothing else opened or read.
      const pass = right && io !== undefined && io.filesOpened <= 25 &&
        io.bytesRead <= store.newestBytes && naive.medianMs > list.medianMs;
      const read = ((io?.bytesRead ?? 0) / 1024).toFixed(0);
      const listed = (store.newestBytes / 1024).toFixed(0);
      return {
        target: target(
          "opens each of the 25 listed files once, reads nothing else; faster than naive",
          {
            shown: `${io?.filesOpened ?? "?"} files, ${read} of ${listed} KiB; ${
              formatRatio(faster)
            } faster`,
            ratio: io?.filesOpened ?? -1,
            limit: 25,
            pass,
            judged: store.count >= JUDGED_FROM.store,
          },
        ),
        notes: [
          `turnlog opened ${io?.filesOpened} files, read ${io?.bytesRead} bytes, listed ${io?.dirsListed} folders; naive opened ${naive.io?.filesOpened} files, read ${naive.io?.bytesRead} bytes`,
          `turnlog vs naive: ${faster.toFixed(0)}x faster`,
          right ? "the newest 25, newest first" : "WRONG ORDER OR SESSIONS",
        ],
      };
    },
  }],
};
