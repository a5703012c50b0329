/**
 * Full resume at each size: turnlog's `resumeSession` against the naive way (the whole file in
 * one string, every line parsed), the limit (every line only read and parsed), the limit that
 * keeps the history, and turnlog's forward replay alone.
 *
 * @module
 */
import { sizeLabel } from "../../testing/generate/mod.ts";
import { formatRatio, type VariantFigures } from "../figures.ts";
import { type BenchmarkDefinition, fileVariant, roundsFor, target } from "./_definition.ts";

type Figures = [VariantFigures, VariantFigures, VariantFigures, VariantFigures, VariantFigures];

/** At least 0.7x the limit's speed and never slower than the naive way. */
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
          const ratio = limit.medianMs / turnlog.medianMs;
          // A naive way that cannot do it at all (a 1 GB file is past V8's longest string) is
          // slower.
          const vsNaive = naive.error ? Infinity : naive.medianMs / turnlog.medianMs;
          const shownNaive = naive.error ? "naive failed" : `${formatRatio(vsNaive)} naive`;
          return {
            target: target(">= 0.7x limit, >= 1x naive", {
              shown: `${formatRatio(ratio)} limit, ${shownNaive}`,
              ratio,
              limit: 0.7,
              pass: ratio >= 0.7 && vsNaive >= 1,
            }),
            notes: [
              `${session.records} records, ${session.orphanCalls} orphan calls, ${session.largeOutputs} outputs >= 40 KB`,
              `throughput vs the limit with the history kept: ${
                formatRatio(kept.medianMs / turnlog.medianMs)
              }; CPU time vs the limit: ${
                formatRatio(limit.cpuMedianMs / turnlog.cpuMedianMs)
              }; the forward replay alone (no backward search for a checkpoint) takes ${
                formatRatio(forward.medianMs / turnlog.medianMs)
              } of resumeSession's time`,
            ],
          };
        },
      };
    }),
};
