/**
 * `inspect --json` on the largest session up to 100 MB: how much memory the inspector's
 * streaming report takes beyond the process at rest.
 *
 * @module
 */
import { sizeLabel } from "../../testing/generate/mod.ts";
import { mb, type VariantFigures } from "../figures.ts";
import { type BenchmarkDefinition, fileVariant, roundsFor, target } from "./_definition.ts";

const MB = 1 << 20;

/** RSS growth under 20% of the file. */
export const inspectJson: BenchmarkDefinition = {
  plan: ({ options, sessions, warm, baseline }) => {
    const size = options.sizes.includes(100 * MB)
      ? 100 * MB
      : options.sizes.filter((s) => s <= 100 * MB).at(-1) ?? options.sizes[0]!;
    const session = sessions.plain.get(size)!;
    return [{
      name: `inspect --json ${sizeLabel(size)}`,
      fileBytes: session.bytes,
      progress: `Inspect --json, ${sizeLabel(size)}...`,
      rounds: roundsFor(session.bytes, options.rounds),
      variants: [
        fileVariant("turnlog inspectSession --json", session, warm.plain, {
          kind: "inspect",
          path: session.path,
        }),
      ],
      judge(figures) {
        const [inspect] = figures as [VariantFigures];
        const ratio = inspect.peakRssDeltaBytes / session.bytes;
        return {
          target: target("RSS growth < 20% of file", {
            shown: `${(100 * ratio).toFixed(1)}%`,
            ratio,
            limit: 0.2,
            pass: ratio < 0.2,
          }),
          notes: [
            `RSS growth ${mb(inspect.peakRssDeltaBytes)} over the process's ${
              mb(baseline.peakRssBytes)
            } at rest; absolute peak ${mb(inspect.peakRssBytes)}`,
          ],
        };
      },
    }];
  },
};
