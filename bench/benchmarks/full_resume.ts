/**
 * Full resume at each size: turnlog's `resumeSession` against the naive way (the whole file in
 * one string, every line parsed), the limit (every line only read and parsed), the limit that
 * keeps the history, and turnlog's forward replay.
 *
 * @module
 */
import { sizeLabel } from "../../testing/generate/mod.ts";
import { formatRatio, type VariantFigures, vsNaive } from "../figures.ts";
import {
  type BenchmarkDefinition,
  fileVariant,
  JUDGED_FROM,
  roundsFor,
  target,
} from "./_definition.ts";

type Figures = [VariantFigures, VariantFigures, VariantFigures, VariantFigures, VariantFigures];

const MB = 1 << 20;

/**
 * Never slower than the naive way (1.5x faster from 100 MB on), and from 10 MB on at least 0.8x
 * the speed of the limit that keeps the history (the floor for any resume that returns it).
 */
function targetFor(bytes: number): { naive: number; kept: number | null; text: string } {
  const naive = bytes >= 100 * MB ? 1.5 : 1;
  const kept = bytes >= 10 * MB ? 0.8 : null;
  const text = `>= ${naive}x naive${kept === null ? "" : `, >= ${kept}x limit + history kept`}`;
  return { naive, kept, text };
}

/** Against the naive way and the limit with the history kept (see `targetFor`). */
export const fullResume: BenchmarkDefinition = {
  plan: ({ options, sessions, warm }) =>
    options.sizes.map((size) => {
      const session = sessions.plain.get(size)!;
      const label = sizeLabel(size);
      const { path } = session;
      const read = (name: string, task: Parameters<typeof fileVariant>[3]) =>
        fileVariant(name, session, warm.plain, task);
      return {
        name: `full resume ${label}`,
        fileBytes: session.bytes,
        progress: `Full resume, ${label} (${session.records} records)...`,
        rounds: roundsFor(session.bytes, options.rounds),
        variants: [
          read("turnlog resumeSession", { kind: "resume", root: session.root, id: session.id }),
          read("naive", { kind: "naive", path }),
          read("limit", { kind: "limit", path }),
          read("limit + history kept", { kind: "limit_keep", path }),
          read("forward replay only", { kind: "resume_full", path }),
        ],
        judge(figures) {
          const [turnlog, naive, limit, kept, forward] = figures as Figures;
          const goal = targetFor(session.bytes);
          const vsKept = kept.medianMs / turnlog.medianMs;
          const againstNaive = vsNaive(naive, turnlog.medianMs);
          return {
            target: target(goal.text, {
              shown: `${againstNaive.shown}, ${formatRatio(vsKept)} kept`,
              ratio: againstNaive.ratio,
              limit: goal.naive,
              pass: againstNaive.ratio >= goal.naive && (goal.kept === null || vsKept >= goal.kept),
              judged: session.bytes >= JUDGED_FROM.resume,
            }),
            notes: [
              `${session.records} records, ${session.orphanCalls} orphan calls, ${session.largeOutputs} outputs >= 40 KB`,
              `throughput vs the limit: ${
                formatRatio(limit.medianMs / turnlog.medianMs)
              }; vs the limit with the history kept: ${
                formatRatio(vsKept)
              }; CPU time vs the limit: ${
                formatRatio(limit.cpuMedianMs / turnlog.cpuMedianMs)
              }; a forward replay of every line (no search for a checkpoint) takes ${
                formatRatio(forward.medianMs / turnlog.medianMs)
              } of resumeSession's time (resume parses a file once, from its end back to its last checkpoint)`,
            ],
          };
        },
      };
    }),
};
