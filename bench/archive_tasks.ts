/**
 * The archive benchmark's measured operations, in a child of `bench/measure.ts`: one archive
 * run (`archiveSessions`, in process) of a generated home, as a first run (the archive removed
 * before, untimed), with nothing changed, or after 1% of the home's bytes were appended to a
 * tenth of its sessions (untimed, before the run). The check is the archive's size on disk.
 *
 * @module
 */
import { join } from "node:path";
import { archiveSessions, archiveSources } from "../src/archive/mod.ts";

/** What a child measures on an archive. */
export type ArchiveTask = {
  kind: "archive_run";
  phase: "first" | "unchanged" | "grown";
  /** `CODEX_HOME` and `CLAUDE_CONFIG_DIR` of the generated home. */
  codexHome: string;
  claudeHome: string;
  /** The archive folder. */
  to: string;
  /** An empty folder standing for the rest of the home (Gemini's, turnlog's store). */
  empty: string;
};

/** One operation's samples and its check value. */
export interface ArchiveOnce {
  samples: number[];
  check: number;
}

function sourcesOf(task: ArchiveTask) {
  const vars: Record<string, string> = {
    CODEX_HOME: task.codexHome,
    CLAUDE_CONFIG_DIR: task.claudeHome,
    GEMINI_CLI_HOME: task.empty,
    HOME: task.empty,
  };
  return archiveSources({ env: { get: (name) => vars[name] }, store: join(task.empty, "store") });
}

async function* files(dir: string): AsyncIterable<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* files(path);
    else if (entry.isFile && entry.name.endsWith(".jsonl")) yield path;
  }
}

/** The bytes of a folder's files. */
export async function folderBytes(dir: string): Promise<number> {
  let total = 0;
  const walk = async (path: string) => {
    for await (const entry of Deno.readDir(path)) {
      const child = join(path, entry.name);
      if (entry.isDirectory) await walk(child);
      else if (entry.isFile) total += (await Deno.stat(child)).size;
    }
  };
  await walk(dir).catch(() => {});
  return total;
}

/**
 * Appends 1% of the home's bytes to every tenth session file: whole lines from the file's own
 * head, so the files stay what their tools would write (appended to, never changed).
 */
async function grow(task: ArchiveTask): Promise<void> {
  const all: { path: string; size: number }[] = [];
  for (const root of [task.codexHome, task.claudeHome]) {
    for await (const path of files(root)) all.push({ path, size: (await Deno.stat(path)).size });
  }
  all.sort((a, b) => a.path.localeCompare(b.path));
  const total = all.reduce((sum, file) => sum + file.size, 0);
  const chosen = all.filter((_, i) => i % 10 === 0);
  const each = Math.ceil(total / 100 / chosen.length);
  for (const { path } of chosen) {
    using file = await Deno.open(path, { read: true });
    const head = new Uint8Array(Math.min(each + 65536, 8 << 20));
    const n = (await file.read(head)) ?? 0;
    let end = head.subarray(0, n).lastIndexOf(10, each) + 1;
    if (end === 0) end = head.subarray(0, n).indexOf(10) + 1;
    await Deno.writeFile(path, head.subarray(0, end), { append: true });
  }
}

/** Runs one archive operation of `task`, the preparation untimed. */
export async function runArchiveTask(task: ArchiveTask): Promise<ArchiveOnce> {
  const sources = sourcesOf(task);
  if (task.phase === "first") await Deno.remove(task.to, { recursive: true }).catch(() => {});
  else {
    const ready = await Deno.stat(join(task.to, "index")).then(() => true, () => false);
    if (!ready) await archiveSessions({ to: task.to, sources });
    if (task.phase === "grown") await grow(task);
  }
  const start = performance.now();
  await archiveSessions({ to: task.to, sources });
  const ms = performance.now() - start;
  return { samples: [ms], check: await folderBytes(task.to) };
}
