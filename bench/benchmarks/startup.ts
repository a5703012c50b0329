/**
 * Start-up at rest: each command a whole process as a user runs it (`deno run` with its
 * task's flags and permissions), on `--help` and on a tiny file of each other tool, beside a
 * `deno run` of an empty script (the floor every command stands on) and, when installed,
 * ccusage on the same tiny Claude Code file (a native binary). What a command costs before it
 * reads a line: on a file of a few MB, most of its time.
 *
 * @module
 */
import { join, resolve } from "node:path";
import { ensureForeignSession } from "../../testing/formats/bench_homes.ts";
import { mb, type VariantFigures } from "../figures.ts";
import type { Variant } from "../group.ts";
import type { MeasureTask } from "../measure.ts";
import { ensurePeers } from "../peers.ts";
import type { BenchmarkDefinition } from "./_definition.ts";
import { ccusageRun, REPO, taskArgv } from "./formats.ts";

/** What a command that worked prints (an error under exit code 1 prints nothing on stdout). */
const PRINTS = { prints: true } as Partial<MeasureTask>;

/** The tiny files' size: a few turns. */
const TINY = 16 * 1024;

const command = (name: string, argv: string[], extra: Partial<MeasureTask> = {}): Variant => ({
  name,
  task: {
    kind: "command",
    argv,
    cwd: REPO,
    okCodes: [0, 1],
    ...extra,
  } as MeasureTask,
  warmup: 1,
  iterations: 5,
});

/** Planned in every run: it takes a few seconds (the smoke run's too, without the peer). */
export const startup: BenchmarkDefinition = {
  plan: async ({ options }) => {
    const empty = resolve(options.outDir, "empty.js");
    await Deno.mkdir(options.outDir, { recursive: true });
    await Deno.writeTextFile(empty, "");
    const claude = await ensureForeignSession(options.outDir, "claude-code", {
      size: TINY,
      seed: 42,
    });
    const codex = await ensureForeignSession(options.outDir, "codex", { size: TINY, seed: 42 });
    const [inspect, importer, search, serve, resume] = await Promise.all(
      ["inspect", "import", "search", "serve", "resume"].map(taskArgv),
    );
    const variants: Variant[] = [
      command("deno run, an empty script", [Deno.execPath(), "run", "-q", empty]),
      command("turnlog inspect --help", [...inspect!, "--help"], PRINTS),
      command("turnlog import --help", [...importer!, "--help"], PRINTS),
      command("turnlog search --help", [...search!, "--help"], PRINTS),
      command("turnlog serve --help", [...serve!, "--help"], PRINTS),
      command("turnlog resume --help", [...resume!, "--help"], PRINTS),
      command(
        "turnlog inspect --json, 16 KB Claude Code",
        [...inspect!, "--json", claude.path],
        PRINTS,
      ),
      command("turnlog inspect --json, 16 KB Codex", [...inspect!, "--json", codex.path], PRINTS),
      command("turnlog inspect --html, 16 KB Claude Code", [
        ...inspect!,
        "--html",
        join(resolve(options.outDir), "startup-page.html"),
        claude.path,
      ], { okCodes: [0] }),
    ];
    const peers = options.peers ? await ensurePeers(options.outDir) : undefined;
    if (peers?.ccusage.entry) {
      variants.push({
        ...command(`${peers.ccusage.spec} claude session --json, 16 KB`, []),
        task: ccusageRun(peers, claude),
      });
    }
    return [{
      name: "start-up at rest",
      fileBytes: 0,
      progress: "start-up at rest...",
      variants,
      rounds: options.rounds,
      judge(figures: VariantFigures[]) {
        const [floor, help] = figures as [VariantFigures, VariantFigures];
        const ratio = help.medianMs / floor.medianMs;
        return {
          target: {
            description: "measured (no target)",
            shown: `inspect --help ${help.medianMs.toFixed(0)} ms, deno's floor ${
              floor.medianMs.toFixed(0)
            } ms`,
            ratio: Math.round(ratio * 1000) / 1000,
            limit: 0,
            pass: null,
          },
          notes: figures.map((figure) =>
            `${figure.name}: ${figure.medianMs.toFixed(0)} ms, ${
              figure.cpuMedianMs.toFixed(0)
            } ms CPU, ${mb(figure.peakRssBytes)} peak`
          ),
        };
      },
    }];
  },
};
