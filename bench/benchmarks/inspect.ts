/**
 * The inspector on the largest session up to 100 MB: how much memory `inspect --json` (the
 * report without per-line entries) and `inspect` (the text view, written turn by turn) take
 * beyond the process at rest. Each runs as the inspect task runs it: with its V8 flags.
 *
 * @module
 */
import { sizeLabel } from "../../testing/generate/mod.ts";
import { mb, type VariantFigures } from "../figures.ts";
import { taskV8Flags } from "../group.ts";
import {
  type BenchContext,
  type BenchmarkDefinition,
  fileVariant,
  JUDGED_FROM,
  type PlannedBenchmark,
  roundsFor,
  target,
} from "./_definition.ts";

const MB = 1 << 20;

/** One inspector benchmark: RSS growth under `limit` of the file. */
function plannedInspect(
  context: BenchContext,
  view: { name: string; kind: "inspect" | "inspect_text"; limit: number },
  v8Flags: string[],
): PlannedBenchmark {
  const { options, sessions, warm, baseline } = context;
  const size = options.sizes.includes(100 * MB)
    ? 100 * MB
    : options.sizes.filter((s) => s <= 100 * MB).at(-1) ?? options.sizes[0]!;
  const session = sessions.plain.get(size)!;
  const percent = `${(100 * view.limit).toFixed(0)}%`;
  return {
    name: `${view.name} ${sizeLabel(size)}`,
    fileBytes: session.bytes,
    progress: `${view.name}, ${sizeLabel(size)}...`,
    rounds: roundsFor(session.bytes, options.rounds),
    variants: [{
      ...fileVariant(`turnlog ${view.name}`, session, warm.plain, {
        kind: view.kind,
        path: session.path,
      }),
      v8Flags,
    }],
    judge(figures) {
      const [inspect] = figures as [VariantFigures];
      const ratio = inspect.peakRssDeltaBytes / session.bytes;
      return {
        target: target(`RSS growth < ${percent} of file`, {
          shown: `${(100 * ratio).toFixed(1)}%`,
          ratio,
          limit: view.limit,
          pass: ratio < view.limit,
          judged: session.bytes >= JUDGED_FROM.inspect,
        }),
        notes: [
          `RSS growth ${mb(inspect.peakRssDeltaBytes)} over the process's ${
            mb(baseline.peakRssBytes)
          } at rest; absolute peak ${mb(inspect.peakRssBytes)}; V8 flags of the inspect task: ${
            v8Flags.join(" ") || "none"
          }`,
        ],
      };
    },
  };
}

/** `inspect --json`: RSS growth under 15% of the file; the text view: under 20%. */
export const inspectMemory: BenchmarkDefinition = {
  plan: async (context) => {
    const flags = await taskV8Flags("inspect");
    return [
      plannedInspect(context, { name: "inspect --json", kind: "inspect", limit: 0.15 }, flags),
      plannedInspect(
        context,
        { name: "inspect text view", kind: "inspect_text", limit: 0.2 },
        flags,
      ),
    ];
  },
};
