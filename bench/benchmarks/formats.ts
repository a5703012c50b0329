/**
 * Other tools' files, and the tools people use on them: a Claude Code transcript, a Codex
 * rollout and a Gemini CLI session in their real shapes (split assistant lines, progress lines,
 * parallel tool calls; token counts and compactions; messages written again, checkpoints), at
 * 10 MB and 100 MB (and 1 GB with `--large`). turnlog's inspector against the limit (every line
 * parsed once: the floor of any reader) and the naive way, import against the naive way;
 * `inspect --json` against ccusage's per-session report of the same file, and the Claude Code
 * page (`inspect --html`) against claude-run serving it, each a whole process run as a user
 * runs it, side by side in the same run.
 *
 * @module
 */
import { fileURLToPath } from "node:url";
import { join, resolve } from "node:path";
import { sizeLabel } from "../../testing/generate/mod.ts";
import {
  ensureForeignSession,
  type ForeignBenchSession,
} from "../../testing/formats/bench_homes.ts";
import { formatRatio, mb, type VariantFigures, vsNaive } from "../figures.ts";
import { taskV8Flags, type Variant } from "../group.ts";
import type { MeasureTask } from "../measure.ts";
import { ensurePeers, type Peers } from "../peers.ts";
import {
  type BenchmarkDefinition,
  type PlannedBenchmark,
  roundsFor,
  target,
} from "./_definition.ts";

const MB = 1 << 20;
/** The repository's root, where the commands run. */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));
const FORMATS = ["claude-code", "codex", "gemini"] as const;
type Format = typeof FORMATS[number];
const LABEL: Record<Format, string> = {
  "claude-code": "Claude Code",
  codex: "Codex",
  gemini: "Gemini CLI",
};
/** The tools ccusage reports on (by its subcommand), from this benchmark's formats. */
const CCUSAGE: Partial<Record<Format, string>> = { "claude-code": "claude", codex: "codex" };

/** The command of a deno.json task, as argv run from the repository's root. */
export async function taskArgv(task: string): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile(join(REPO, "deno.json"))) as {
    tasks: Record<string, { command: string }>;
  };
  const [deno, run, ...rest] = config.tasks[task]!.command.split(/\s+/);
  if (deno !== "deno" || run !== "run") throw new Error(`Task ${task} is not a deno run`);
  return [Deno.execPath(), "run", `--config=${join(REPO, "deno.json")}`, ...rest];
}

/**
 * A variant of one of turnlog's library calls, warmed up on the 10 MB file for a big one, with
 * the V8 flags of the task that runs it for a user (none for the baselines).
 */
function inProcess(
  name: string,
  session: ForeignBenchSession,
  warm: ForeignBenchSession,
  task: Extract<MeasureTask, { path: string }>,
  v8Flags: string[] = [],
): Variant {
  const big = session.bytes > 16 * MB;
  return {
    name,
    task,
    bytes: session.bytes,
    warmup: 2,
    iterations: big ? 1 : 3,
    ...(big ? { warmupTask: { ...task, path: warm.path } as MeasureTask } : {}),
    ...(v8Flags.length > 0 ? { v8Flags } : {}),
  };
}

/** A whole process per run: the file is in the page cache after the one warm-up. */
function wholeProcess(name: string, bytes: number, task: MeasureTask): Variant {
  return { name, task, bytes, warmup: 1, iterations: bytes > 16 * MB ? 1 : 3 };
}

/**
 * The inspector side by side with the limit (every line streamed and parsed once, nothing
 * else: what any reader that parses each line costs at least) and the naive way (the whole file
 * in one string, every line parsed). The target (issue 41), judged from 100 MB: at most twice
 * the limit's time; from 1 GB, a peak RSS under a quarter of the file too.
 */
function againstFloor(name: string, session: ForeignBenchSession, variants: Variant[]) {
  const memory = session.bytes >= 1 << 30;
  return {
    name,
    fileBytes: session.bytes,
    progress: `${name}...`,
    variants,
    judge(figures: VariantFigures[]) {
      const [turnlog, naive, limit] = figures as [VariantFigures, VariantFigures, VariantFigures];
      const ratio = turnlog.medianMs / limit.medianMs;
      const peak = turnlog.peakRssBytes / session.bytes;
      return {
        target: target(`<= 2x limit${memory ? ", peak RSS < 25% of file" : ""}`, {
          shown: `${formatRatio(ratio)} limit, ${vsNaive(naive, turnlog.medianMs).shown}` +
            `${memory ? `, peak ${(100 * peak).toFixed(1)}% of file` : ""}`,
          ratio,
          limit: 2,
          pass: ratio <= 2 && (!memory || peak < 0.25),
          judged: session.bytes >= 100 * MB,
        }),
        notes: [
          `the limit (every line streamed and parsed, nothing kept) ${
            limitVsNaive(limit, naive)
          }; turnlog ${formatRatio(ratio)} the limit's (CPU: ${
            formatRatio(turnlog.cpuMedianMs / limit.cpuMedianMs)
          }); peak RSS ${mb(turnlog.peakRssBytes)}`,
        ],
      };
    },
  };
}

/** The limit's time as a share of the naive way's, or that the naive way failed. */
function limitVsNaive(limit: VariantFigures, naive: VariantFigures): string {
  return naive.error
    ? "runs where the naive way failed"
    : `takes ${formatRatio(limit.medianMs / naive.medianMs)} the naive way's time`;
}

/**
 * Side by side with the naive way (the whole file in one string, every line parsed) and the
 * limit (every line streamed and parsed, nothing else: what any reader that parses each line
 * costs at least). The target, judged from `judgedFrom`: at least the naive way's speed.
 */
function againstNaive(
  name: string,
  session: ForeignBenchSession,
  variants: Variant[],
  judgedFrom: number,
) {
  return {
    name,
    fileBytes: session.bytes,
    progress: `${name}...`,
    variants,
    judge(figures: VariantFigures[]) {
      const [turnlog, naive, limit] = figures as [VariantFigures, VariantFigures, VariantFigures];
      const { ratio, shown } = vsNaive(naive, turnlog.medianMs);
      return {
        target: target(">= 1x naive", {
          shown,
          ratio,
          limit: 1,
          pass: ratio >= 1,
          judged: session.bytes >= judgedFrom,
        }),
        notes: [
          `the limit (every line streamed and parsed, nothing kept) ${
            limitVsNaive(limit, naive)
          }; turnlog ${formatRatio(turnlog.medianMs / limit.medianMs)} the limit's`,
        ],
      };
    },
  };
}

/**
 * `export` against `inspect --json` of the same file, both whole processes (issue 36): at most
 * 1.5x its time, judged at 100 MB.
 */
function againstInspect(name: string, session: ForeignBenchSession, variants: Variant[]) {
  return {
    name,
    fileBytes: session.bytes,
    progress: `${name}...`,
    variants,
    judge(figures: VariantFigures[]) {
      const [exported, inspected] = figures as [VariantFigures, VariantFigures];
      const ratio = exported.medianMs / inspected.medianMs;
      return {
        target: target("<= 1.5x inspect --json's time", {
          shown: `${formatRatio(ratio)} its time`,
          ratio,
          limit: 1.5,
          pass: ratio <= 1.5,
          judged: session.bytes >= 100 * MB,
        }),
        notes: [
          `export: ${exported.medianMs.toFixed(0)} ms, ${
            mb(exported.peakRssBytes)
          } peak; inspect --json: ${inspected.medianMs.toFixed(0)} ms, ${
            mb(inspected.peakRssBytes)
          } peak (each a whole process)`,
        ],
      };
    },
  };
}

/** What a run is judged on against a peer: its speed and, from a size on, its memory. */
interface PeerTarget {
  /** The least speed, as a ratio of the peer's (its time over turnlog's). */
  speed: number;
  /** Whether turnlog's peak RSS must stay at or under the peer's at this size. */
  memory: boolean;
}

/**
 * Against a peer, both whole processes: `wanted` undefined at a size no target is stated for.
 * A third variant, when there is one, is the limit in process: how far the whole process is
 * from the floor, start-up included.
 */
function againstPeer(
  name: string,
  session: ForeignBenchSession,
  variants: Variant[],
  wanted: PeerTarget | undefined,
) {
  return {
    name,
    fileBytes: session.bytes,
    progress: `${name}...`,
    variants,
    judge(figures: VariantFigures[]) {
      const [turnlog, peer, limit] = figures as [VariantFigures, VariantFigures, VariantFigures?];
      const speed = peer.medianMs / turnlog.medianMs;
      const memory = turnlog.peakRssBytes / peer.peakRssBytes;
      const goal = wanted ?? { speed: 1, memory: true };
      const description = `>= ${goal.speed}x its speed${goal.memory ? ", peak RSS <= its" : ""}`;
      return {
        target: target(description, {
          shown: `${formatRatio(speed)} its speed, ${formatRatio(memory)} its peak RSS`,
          ratio: speed,
          limit: goal.speed,
          pass: speed >= goal.speed && (!goal.memory || memory <= 1),
          judged: wanted !== undefined,
        }),
        notes: [
          `${peer.name}: ${peer.medianMs.toFixed(0)} ms, ${mb(peer.peakRssBytes)} peak; turnlog: ${
            turnlog.medianMs.toFixed(0)
          } ms, ${mb(turnlog.peakRssBytes)} peak (each a whole process: start-up included)`,
          ...(limit
            ? [
              `the limit in process: ${limit.medianMs.toFixed(0)} ms; turnlog's whole process ${
                formatRatio(turnlog.medianMs / limit.medianMs)
              } its time, ${peer.name} ${formatRatio(peer.medianMs / limit.medianMs)}`,
            ]
            : []),
        ],
      };
    },
  };
}

/** The issue's targets against ccusage (issue 25), by size. */
function ccusageTarget(bytes: number): PeerTarget | undefined {
  if (bytes >= 100 * MB) return { speed: 0.6, memory: true };
  if (bytes >= 10 * MB) return { speed: 0.35, memory: false };
  return undefined;
}

/** What ccusage runs to make its per-session report of one tool's home. */
export function ccusageRun(peers: Peers, session: ForeignBenchSession): MeasureTask {
  const tool = CCUSAGE[session.format] ?? "claude";
  return {
    kind: "command",
    argv: [peers.ccusage.entry!, tool, "session", "--json", "--offline"],
    env: session.format === "codex"
      ? { CODEX_HOME: session.home, LOG_LEVEL: "0" }
      : { CLAUDE_CONFIG_DIR: session.home, LOG_LEVEL: "0" },
  };
}

async function planSize(
  context: { outDir: string; rounds: number; peers: Peers | undefined },
  format: Format,
  size: number,
): Promise<PlannedBenchmark[]> {
  const { outDir, peers } = context;
  const session = await ensureForeignSession(outDir, format, { size, seed: 42 });
  const warm = size > 16 * MB
    ? await ensureForeignSession(outDir, format, { size: 10 * MB, seed: 42 })
    : session;
  const label = `${LABEL[format]} ${sizeLabel(size)}`;
  const rounds = roundsFor(session.bytes, context.rounds);
  const naive = inProcess("naive", session, warm, { kind: "foreign_naive", path: session.path });
  const limit = inProcess("limit", session, warm, { kind: "limit", path: session.path });
  const inspect = await taskArgv("inspect");
  const planned: PlannedBenchmark[] = [
    {
      ...againstFloor(`inspect ${label}`, session, [
        inProcess("turnlog inspectSession", session, warm, {
          kind: "foreign_inspect",
          path: session.path,
        }, await taskV8Flags("inspect")),
        naive,
        limit,
      ]),
      rounds,
    },
  ];
  // At 1 GB the reader alone (its floor and memory): import, export and the peers stop at 100 MB.
  if (size > 100 * MB) return planned;
  planned.push(
    {
      ...againstNaive(`import ${label}`, session, [
        inProcess("turnlog importSession", session, warm, {
          kind: "foreign_import",
          path: session.path,
          root: resolve(outDir, "import-runs"),
        }),
        naive,
        limit,
      ], 100 * MB),
      rounds,
    },
  );
  const exportArgv = await taskArgv("export");
  planned.push({
    ...againstInspect(`export --to codex vs inspect --json, ${label}`, session, [
      wholeProcess("turnlog export --to codex", session.bytes, {
        kind: "command",
        // A new rollout each run (an export never writes over a file), in a home of its own.
        argv: [...exportArgv, session.path, "--to", "codex", "--cwd", REPO],
        env: { CODEX_HOME: resolve(outDir, "export-runs", "codex-home") },
        cwd: REPO,
      }),
      wholeProcess("turnlog inspect --json", session.bytes, {
        kind: "command",
        argv: [...inspect, "--json", session.path],
        cwd: REPO,
        okCodes: [0, 1],
        prints: true,
      }),
    ]),
    rounds,
  });
  const ccusageTool = CCUSAGE[format];
  if (peers?.ccusage.entry && ccusageTool) {
    planned.push({
      ...againstPeer(`inspect --json vs ccusage, ${label}`, session, [
        wholeProcess("turnlog inspect --json", session.bytes, {
          kind: "command",
          argv: [...inspect, "--json", session.path],
          cwd: REPO,
          okCodes: [0, 1],
          prints: true,
        }),
        wholeProcess(
          `${peers.ccusage.spec} ${ccusageTool} session --json`,
          session.bytes,
          ccusageRun(peers, session),
        ),
        limit,
      ], ccusageTarget(session.bytes)),
      rounds,
    });
  }
  if (format === "claude-code" && peers?.claudeRun.entry) {
    const page = resolve(outDir, "page.html");
    planned.push({
      ...againstPeer(`session page vs claude-run, ${label}`, session, [
        wholeProcess("turnlog inspect --html", session.bytes, {
          kind: "command",
          argv: [...inspect, "--html", page, session.path],
          cwd: REPO,
        }),
        wholeProcess(`${peers.claudeRun.spec} (server, conversation served)`, session.bytes, {
          kind: "viewer",
          node: peers.claudeRun.node!,
          script: peers.claudeRun.entry,
          home: session.home,
          id: session.id,
        }),
      ], size >= 10 * MB ? { speed: 1, memory: true } : undefined),
      rounds,
    });
  }
  return planned;
}

/**
 * Planned at the sizes from 10 MB on, 1 GB the inspector alone (a run without them, the smoke
 * run, takes its largest size and no peers).
 */
export const otherTools: BenchmarkDefinition = {
  plan: async ({ options }) => {
    const large = options.sizes.filter((size) => size >= 10 * MB);
    const sizes = large.length > 0 ? large : [Math.max(...options.sizes)];
    const peers = options.peers && large.length > 0 ? await ensurePeers(options.outDir) : undefined;
    const context = { outDir: options.outDir, rounds: options.rounds, peers };
    const planned: PlannedBenchmark[] = [];
    for (const format of FORMATS) {
      for (const size of sizes) planned.push(...await planSize(context, format, size));
    }
    for (const peer of peers ? [peers.ccusage, peers.claudeRun] : []) {
      if (peer.missing) console.error(`  ${peer.spec} left out: ${peer.missing}`);
    }
    return planned;
  },
};
