/**
 * Find a session by id in the store: turnlog's `findSession` (file names only) against the
 * naive lookup that reads the first line of every file.
 *
 * @module
 */
import type { VariantFigures } from "../figures.ts";
import { formatRatio } from "../figures.ts";
import { type BenchmarkDefinition, JUDGED_FROM, target } from "./_definition.ts";

/** At least 100x faster than the naive lookup. */
export const findById: BenchmarkDefinition = {
  plan: ({ options, store }) => [{
    name: `find by id (${store.count} sessions)`,
    fileBytes: 0,
    progress: `Find by id among ${store.count} sessions...`,
    rounds: options.rounds,
    variants: [
      {
        name: "turnlog findSession",
        task: { kind: "find", root: store.root, ids: store.lookupIds },
        warmup: 1,
        iterations: 5,
      },
      {
        name: "naive (first line of every file)",
        task: { kind: "find_naive", root: store.root, ids: store.lookupIds },
        warmup: 0,
        iterations: 1,
      },
    ],
    judge(figures) {
      const [find, naive] = figures as [VariantFigures, VariantFigures];
      const ratio = naive.medianMs / find.medianMs;
      return {
        target: target(">= 100x faster than naive", {
          shown: `${formatRatio(ratio)} faster`,
          ratio,
          limit: 100,
          pass: ratio >= 100,
          judged: store.count >= JUDGED_FROM.store,
        }),
        notes: [
          `per lookup: turnlog opened ${find.io?.filesOpened ?? "?"} files and listed ${
            find.io?.dirsListed ?? "?"
          } folders; naive opened ${naive.io?.filesOpened ?? "?"} files`,
        ],
      };
    },
  }],
};
