/**
 * Resume from the last checkpoint at each size: turnlog's `resumeSession`, which searches back
 * for the checkpoint, against a full forward replay of the same file.
 *
 * @module
 */
import { sizeLabel } from "../../testing/generate/mod.ts";
import type { VariantFigures } from "../figures.ts";
import {
  type BenchmarkDefinition,
  fileVariant,
  JUDGED_FROM,
  roundsFor,
  target,
} from "./_definition.ts";

/** At most 3% of the full replay's time (stated from 100 MB on: fixed costs rule below). */
export const checkpointResume: BenchmarkDefinition = {
  plan: ({ options, sessions, warm }) =>
    options.sizes.map((size) => {
      const session = sessions.checkpoints.get(size)!;
      const label = sizeLabel(size);
      return {
        name: `checkpoint resume ${label}`,
        fileBytes: session.bytes,
        progress: `Resume from the last checkpoint, ${label}...`,
        rounds: roundsFor(session.bytes, options.rounds),
        variants: [
          fileVariant("turnlog resumeSession (checkpoint)", session, warm.checkpoints, {
            kind: "resume",
            root: session.root,
            id: session.id,
          }),
          fileVariant("full forward replay", session, warm.checkpoints, {
            kind: "resume_full",
            path: session.path,
          }),
        ],
        judge(figures) {
          const [fromCheckpoint, full] = figures as [VariantFigures, VariantFigures];
          const ratio = fromCheckpoint.medianMs / full.medianMs;
          const at = (100 * session.lastCheckpointOffset / session.bytes).toFixed(2);
          return {
            target: target("<= 3% of full replay", {
              shown: `${(100 * ratio).toFixed(1)}%`,
              ratio,
              limit: 0.03,
              pass: ratio <= 0.03,
              judged: session.bytes >= JUDGED_FROM.checkpoint,
            }),
            notes: [`${session.checkpointCount} checkpoints, the last at ${at}% of the file`],
          };
        },
      };
    }),
};
