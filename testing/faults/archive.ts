/**
 * The archive's fault suite: `archive` run as a user runs it and killed with SIGKILL at each
 * of its numbered write steps in turn (`TURNLOG_ARCHIVE_KILL_AT`: every temp opened, written,
 * synced, renamed), on a first run and on a run after files grew and one was rewritten. After
 * each kill the archive is checked (every chunk and version right, nothing referenced that is
 * half-written), then the next run must complete and hold every file as it is.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { archiveLayout, checkArchive, KILL_AT_ENV, readIndex } from "../../src/archive/mod.ts";
import { adapterByFlag } from "../../src/formats/mod.ts";
import { writeClaudeHome, writeCodexHome } from "../formats/homes.ts";

const ARCHIVE_CLI = fileURLToPath(new URL("../../cli/archive.ts", import.meta.url));

/** What the suite found. */
export interface ArchiveFaultReport {
  /** Kills made (each at another write step). */
  kills: number;
  /** Each thing wrong, saying after which kill. */
  problems: string[];
}

/** Options of {@linkcode runArchiveFaults}. */
export interface ArchiveFaultOptions {
  /** Deno's cache for the runs (they run with another HOME). @default {$DENO_DIR, else ~/.cache/deno} */
  denoDir?: string;
  /** Only these homes, by flag (`codex`): a smaller run. @default {every home} */
  homes?: readonly string[];
  /** Kill at every `every`-th write step only (1: all of them). @default {1} */
  every?: number;
  /** Told after each kill. */
  onKill?: (phase: string, point: number) => void;
}

interface Home {
  dir: string;
  files: () => Promise<Map<string, string>>;
}

async function sha256(path: string): Promise<string> {
  return createHash("sha256").update(await Deno.readFile(path)).digest("hex");
}

async function* walk(dir: string): AsyncIterable<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile && entry.name.endsWith(".jsonl")) yield path;
  }
}

async function makeHome(dir: string): Promise<Home> {
  await writeCodexHome(join(dir, ".codex"));
  await writeClaudeHome(join(dir, ".claude"));
  const roots: [string, string][] = [
    ["codex", join(dir, ".codex", "sessions")],
    ["claude-code", join(dir, ".claude", "projects")],
  ];
  return {
    dir,
    async files() {
      const found = new Map<string, string>();
      for (const [format, root] of roots) {
        for await (const path of walk(root)) {
          found.set(`${format}/${relative(root, path).split(sep).join("/")}`, await sha256(path));
        }
      }
      return found;
    },
  };
}

async function runArchive(
  home: Home,
  run: { denoDir: string; flags: string[] },
  killAt?: number,
): Promise<number> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", ARCHIVE_CLI, ...run.flags],
    env: {
      HOME: home.dir,
      DENO_DIR: run.denoDir,
      NO_COLOR: "1",
      TURNLOG_ARCHIVE: join(home.dir, "archive"),
      TURNLOG_SESSIONS_DIR: join(home.dir, "store"),
      TURNLOG_STORE: "",
      [KILL_AT_ENV]: killAt === undefined ? "" : String(killAt),
    },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).output();
  if (output.signal !== null && output.signal !== "SIGKILL") {
    throw new Error(`archive died of ${output.signal}`);
  }
  return output.signal === "SIGKILL" ? -9 : output.code;
}

/** The problems of the archive now: its check's, and files of it that are not whole. */
async function problemsOf(to: string): Promise<string[]> {
  const check = await checkArchive(to);
  return check.problems;
}

/** The problems of a completed archive: each home file's latest version holds its bytes. */
async function completeness(home: Home, formats: readonly string[]): Promise<string[]> {
  const layout = archiveLayout(join(home.dir, "archive"));
  const index = await readIndex(layout);
  const problems: string[] = [];
  for (const [key, hash] of await home.files()) {
    if (formats.length > 0 && !formats.some((format) => key.startsWith(`${format}/`))) continue;
    const latest = index.latest(key);
    if (latest === undefined) problems.push(`${key}: not archived`);
    else if (latest.sha256 !== hash) problems.push(`${key}: archived with other bytes`);
  }
  const left = await Array.fromAsync(Deno.readDir(layout.tmp));
  if (left.length > 0) problems.push(`tmp/ still holds ${left.map((e) => e.name).join(", ")}`);
  return problems;
}

/** Grows two files and rewrites one in place: the second run's changes. */
async function change(home: Home): Promise<void> {
  for await (const path of walk(join(home.dir, ".codex", "sessions"))) {
    await Deno.writeTextFile(path, '{"type":"event_msg","payload":{"type":"x"}}\n', {
      append: true,
    });
  }
  for await (const path of walk(join(home.dir, ".claude", "projects", "-work-other"))) {
    const text = await Deno.readTextFile(path);
    await Deno.writeTextFile(path, text.replaceAll("Step", "Stage"));
    break;
  }
}

/**
 * Kills `archive` at every write step of a first run and of a second run after changes; after
 * each kill checks the archive, then completes it with one more run and checks it holds every
 * file as it is.
 */
export async function runArchiveFaults(
  options: ArchiveFaultOptions = {},
): Promise<ArchiveFaultReport> {
  const denoDir = options.denoDir ?? Deno.env.get("DENO_DIR") ??
    join(Deno.env.get("HOME") ?? "/root", ".cache", "deno");
  const report: ArchiveFaultReport = { kills: 0, problems: [] };
  const homes = options.homes ?? [];
  const run = { denoDir, flags: homes.map((flag) => `--${flag}`) };
  const formats = homes.map((flag) => adapterByFlag(flag)?.name ?? flag);
  for (const phase of ["first run", "after changes"] as const) {
    for (let point = 1;; point += options.every ?? 1) {
      const dir = await Deno.makeTempDir({ prefix: "turnlog-archive-faults-" });
      try {
        const home = await makeHome(dir);
        if (phase === "after changes") {
          if (await runArchive(home, run) !== 0) throw new Error("the first run failed");
          await change(home);
        }
        const code = await runArchive(home, run, point);
        if (code === 0) break;
        if (code !== -9) throw new Error(`archive exited ${code} at point ${point}`);
        report.kills++;
        options.onKill?.(phase, point);
        const label = `${phase}, killed at write step ${point}`;
        for (const problem of await problemsOf(join(dir, "archive"))) {
          report.problems.push(`${label}: ${problem}`);
        }
        const next = await runArchive(home, run);
        if (next !== 0) report.problems.push(`${label}: the next run exited ${next}`);
        for (
          const problem of [
            ...await problemsOf(join(dir, "archive")),
            ...await completeness(home, formats),
          ]
        ) {
          report.problems.push(`${label}, then run again: ${problem}`);
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }
  }
  return report;
}
