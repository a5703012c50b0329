/**
 * Append one record to the largest session and to an empty one, in turn in one child (the
 * order swapped every iteration), so both see the same machine: appending must not depend on
 * the file's size.
 *
 * @module
 */
import { join } from "node:path";
import { sizeLabel } from "../../testing/generate/mod.ts";
import { createSession } from "../../src/store/mod.ts";
import { formatRatio, type VariantFigures } from "../figures.ts";
import { type BenchmarkDefinition, JUDGED_FROM, target } from "./_definition.ts";

/** The same cost on both files (ratio <= 1.25). */
export const appendRecord: BenchmarkDefinition = {
  plan: async ({ options, sessions }) => {
    const largest = Math.max(...options.sizes);
    const big = sessions.plain.get(largest)!;
    const label = sizeLabel(largest);
    const dir = join(options.outDir, "append");
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    await Deno.mkdir(dir, { recursive: true });
    const bigCopy = join(dir, "big.jsonl");
    await Deno.copyFile(big.path, bigCopy);
    const fresh = await createSession(join(dir, "store"), {
      cwd: "/bench",
      modelProvider: "openai",
      model: "gpt-5",
      wireApi: "responses",
      policy: { approval: "ask-changes" },
    });
    fresh.writer.close();
    return [{
      name: `append (${label} vs empty)`,
      fileBytes: big.bytes,
      progress: `Append one record, ${label} file vs an empty session...`,
      rounds: options.rounds,
      variants: [{
        name: "append",
        task: { kind: "append", paths: [bigCopy, fresh.location.path] },
        warmup: 4,
        iterations: 30,
        sides: [`append to ${label}`, "append to an empty session"],
      }],
      judge(figures) {
        const [toBig, toEmpty] = figures as [VariantFigures, VariantFigures];
        const ratio = toBig.medianMs / toEmpty.medianMs;
        return {
          target: target("same cost (ratio <= 1.25)", {
            shown: formatRatio(ratio),
            ratio,
            limit: 1.25,
            pass: ratio <= 1.25,
            judged: largest >= JUDGED_FROM.append,
          }),
          notes: largest < 1 << 30 ? [`${label} file: run with --large for the 1 GB one`] : [],
        };
      },
      cleanup: () => Deno.remove(dir, { recursive: true }).catch(() => {}),
    }];
  },
};
