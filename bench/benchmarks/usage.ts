/**
 * `usage daily` against ccusage: over a Codex home and a Claude Code home together (the search
 * benchmark's homes), `usage daily --json` cold (its catalog removed before each run, so the
 * catalog is built in the same run) and warm (the catalog kept from the run before), and
 * ccusage's `claude daily --json --offline` then `codex daily --json --offline` on the same
 * homes, each a whole process (start-up included), side by side in one run, at 100 MB and 1 GB
 * (`--large`). The targets: cold within 2x of ccusage's time, warm at least 10x faster, peak
 * RSS at most ccusage's.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { sizeLabel } from "../../testing/generate/mod.ts";
import { formatRatio, mb, type VariantFigures } from "../figures.ts";
import type { Variant } from "../group.ts";
import type { MeasureTask } from "../measure.ts";
import { ensurePeers, type Peers } from "../peers.ts";
import {
  type BenchmarkDefinition,
  type PlannedBenchmark,
  roundsFor,
  target,
} from "./_definition.ts";
import { taskArgv } from "./formats.ts";
import { ensureSearchHome, type SearchHome } from "./search_home.ts";

const MB = 1 << 20;
const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** The sizes the targets are stated for: 100 MB and 1 GB, start-up included. */
const MEASURED_FROM = 100 * MB;

function wholeProcess(name: string, bytes: number, task: MeasureTask): Variant {
  return { name, task, bytes, warmup: 1, iterations: 1 };
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

function judge(home: SearchHome) {
  return (figures: VariantFigures[]) => {
    const [cold, warm, peer] = figures as [VariantFigures, VariantFigures, VariantFigures];
    const coldRatio = cold.medianMs / peer.medianMs;
    const warmSpeed = peer.medianMs / warm.medianMs;
    const memory = Math.max(cold.peakRssBytes, warm.peakRssBytes) / peer.peakRssBytes;
    return {
      target: target("cold within 2x of ccusage, warm >= 10x its speed, peak RSS <= its", {
        shown: `cold ${formatRatio(coldRatio)} its time, warm ${formatRatio(warmSpeed)} its ` +
          `speed, ${formatRatio(memory)} its peak RSS`,
        ratio: warmSpeed,
        limit: 10,
        pass: coldRatio <= 2 && warmSpeed >= 10 && memory <= 1,
        judged: home.bytes >= MEASURED_FROM,
      }),
      notes: [
        `usage daily cold: ${cold.medianMs.toFixed(0)} ms, ${mb(cold.peakRssBytes)} peak; ` +
        `warm: ${warm.medianMs.toFixed(0)} ms, ${mb(warm.peakRssBytes)} peak; ccusage claude + ` +
        `codex daily: ${peer.medianMs.toFixed(0)} ms, ${mb(peer.peakRssBytes)} peak; ` +
        `${home.sessions} sessions`,
      ],
    };
  };
}

async function planSize(
  outDir: string,
  size: number,
  rounds: number,
  peers: Peers,
): Promise<PlannedBenchmark> {
  const home = await ensureSearchHome(outDir, { size, seed: 42 });
  const usage = [...await taskArgv("usage"), "daily", "--json", "--codex", "--claude"];
  const env = { CODEX_HOME: home.codexHome, CLAUDE_CONFIG_DIR: home.claudeHome };
  // The catalogs in a folder of this run's own: the home may be shared, read-only.
  const work = await Deno.makeTempDir({ prefix: "turnlog-usage-bench-" });
  const coldCatalog = join(work, "cold.sqlite");
  const warmCatalog = join(work, "warm.sqlite");
  const ccusage = quote(peers.ccusage.entry!);
  const variants = [
    wholeProcess("turnlog usage daily, cold (catalog built)", home.bytes, {
      kind: "command",
      argv: [
        "sh",
        "-c",
        `rm -f ${quote(coldCatalog)}*; exec ${usage.map(quote).join(" ")} >/dev/null`,
      ],
      env: { ...env, TURNLOG_CATALOG: coldCatalog },
      cwd: REPO,
    }),
    wholeProcess("turnlog usage daily, warm (catalog kept)", home.bytes, {
      kind: "command",
      argv: usage,
      env: { ...env, TURNLOG_CATALOG: warmCatalog },
      cwd: REPO,
      prints: true,
    }),
    wholeProcess(`${peers.ccusage.spec} claude daily + codex daily`, home.bytes, {
      kind: "command",
      argv: [
        "sh",
        "-c",
        `${ccusage} claude daily --json --offline >/dev/null && ` +
        `exec ${ccusage} codex daily --json --offline >/dev/null`,
      ],
      env: { ...env, LOG_LEVEL: "0" },
    }),
  ];
  const name = `usage daily vs ccusage, home of ${sizeLabel(size)}`;
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

/** Planned at 100 MB and 1 GB (when the run has them) with ccusage installed; else left out. */
export const usageVsCcusage: BenchmarkDefinition = {
  word: "usage",
  plan: async ({ options }) => {
    const sizes = options.sizes.filter((size) => size >= MEASURED_FROM);
    if (sizes.length === 0 || !options.peers) return [];
    const peers = await ensurePeers(options.outDir);
    if (!peers.ccusage.entry) {
      console.error(`  usage vs ccusage left out: ${peers.ccusage.missing}`);
      return [];
    }
    const planned: PlannedBenchmark[] = [];
    for (const size of sizes) {
      planned.push(await planSize(options.outDir, size, options.rounds, peers));
    }
    return planned;
  },
};
