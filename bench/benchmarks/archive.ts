/**
 * The archive (issue 37): `archiveSessions` of the generated Codex and Claude Code home (the
 * search benchmark's), in process, as a first run, again with nothing changed (target: at most
 * 2% of the first run's time), and after 1% of the home's bytes were appended to a tenth of
 * its sessions (at most 5%); and the archive's size on disk against the raw bytes (at most
 * 30%). Measured at 100 MB and 1 GB (`--large`); the smoke run takes its largest size and
 * gives no verdict.
 *
 * @module
 */
import { join } from "node:path";
import { sizeLabel } from "../../testing/generate/mod.ts";
import { mb, type VariantFigures } from "../figures.ts";
import type { ArchiveTask } from "../archive_tasks.ts";
import type { Variant } from "../group.ts";
import {
  type BenchmarkDefinition,
  type PlannedBenchmark,
  roundsFor,
  target,
} from "./_definition.ts";
import { ensureSearchHome, type SearchHome } from "./search_home.ts";

const MB = 1 << 20;
/** The sizes the targets are stated for: 100 MB and 1 GB. */
const JUDGED_FROM = 100 * MB;
const LIMITS = { unchanged: 0.02, grown: 0.05, size: 0.3 };

/**
 * One run a child; the runs after a first one warmed up by one run of their own (compiled
 * code, as a scheduled run's steady state), the first run cold (seconds against a compile).
 */
function variant(name: string, bytes: number, task: ArchiveTask): Variant {
  return { name, task, bytes, warmup: task.phase === "first" ? 0 : 1, iterations: 1 };
}

function judge(home: SearchHome) {
  return (figures: VariantFigures[]) => {
    const [first, unchanged, grown] = figures as [VariantFigures, VariantFigures, VariantFigures];
    const ratios = {
      unchanged: unchanged.medianMs / first.medianMs,
      grown: grown.medianMs / first.medianMs,
      size: Number(first.check) / home.bytes,
    };
    const worst = Math.max(
      ratios.unchanged / LIMITS.unchanged,
      ratios.grown / LIMITS.grown,
      ratios.size / LIMITS.size,
    );
    const percent = (ratio: number) => `${(ratio * 100).toFixed(1)}%`;
    return {
      target: target("unchanged <= 2%, 1% grown <= 5% of the first run; size <= 30% of raw", {
        shown: `${percent(ratios.unchanged)}, ${percent(ratios.grown)}; ${percent(ratios.size)}`,
        ratio: worst,
        limit: 1,
        pass: worst <= 1,
        judged: home.bytes >= JUDGED_FROM,
      }),
      notes: [
        `first run ${first.medianMs.toFixed(0)} ms (${mb(first.peakRssBytes)} peak), unchanged ${
          unchanged.medianMs.toFixed(1)
        } ms, 1% grown ${grown.medianMs.toFixed(0)} ms; archive ${mb(Number(first.check))} of ${
          mb(home.bytes)
        } raw; ${home.sessions} sessions`,
      ],
    };
  };
}

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const a = join(from, entry.name);
    const b = join(to, entry.name);
    if (entry.isDirectory) await copyTree(a, b);
    else if (entry.isFile) await Deno.copyFile(a, b);
  }
}

async function planSize(outDir: string, size: number, rounds: number): Promise<PlannedBenchmark> {
  const home = await ensureSearchHome(outDir, { size, seed: 42 });
  const work = await Deno.makeTempDir({ dir: outDir, prefix: "archive-bench-" });
  const empty = join(work, "empty");
  await Deno.mkdir(empty);
  // The grown variant appends to its home: a copy of its own, so the others stay as generated.
  const grownHome = join(work, "grown-home");
  await copyTree(home.root, grownHome);
  const rel = (path: string) => path.slice(home.root.length + 1);
  const base = { kind: "archive_run" as const, empty };
  const homes = { codexHome: home.codexHome, claudeHome: home.claudeHome };
  const variants = [
    variant("archive, first run", home.bytes, {
      ...base,
      ...homes,
      phase: "first",
      to: join(work, "first"),
    }),
    variant("archive, nothing changed", home.bytes, {
      ...base,
      ...homes,
      phase: "unchanged",
      to: join(work, "unchanged"),
    }),
    variant("archive, after 1% grew", home.bytes, {
      ...base,
      codexHome: join(grownHome, rel(home.codexHome)),
      claudeHome: join(grownHome, rel(home.claudeHome)),
      phase: "grown",
      to: join(work, "grown"),
    }),
  ];
  const name = `archive, home of ${sizeLabel(size)}`;
  return {
    name,
    fileBytes: home.bytes,
    progress: `${name}...`,
    variants,
    rounds: roundsFor(home.bytes, rounds),
    judge: judge(home),
    cleanup: () => Deno.remove(work, { recursive: true }),
  };
}

/** Planned at 100 MB and 1 GB when the run has them; else at the run's largest size. */
export const archiveRuns: BenchmarkDefinition = {
  word: "archive",
  plan: async ({ options }) => {
    const large = options.sizes.filter((size) => size >= JUDGED_FROM);
    const sizes = large.length > 0 ? large : [Math.max(...options.sizes)];
    const planned: PlannedBenchmark[] = [];
    for (const size of sizes) planned.push(await planSize(options.outDir, size, options.rounds));
    return planned;
  },
};
