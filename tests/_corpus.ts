/**
 * The shared corpus of real Codex and Claude Code files, beside the repository when present
 * (never copied into it): where it is, and its session files in a stable order.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SearchSource } from "../src/search/mod.ts";
import { homeFiles } from "./_search_oracle.ts";

/**
 * The corpus folder: `../shared/corpus/` from the repository, or from the folder that holds a
 * checkout's worktrees (`<main>/../wt/<name>/` finds `<main>/../shared/corpus/`).
 */
export const CORPUS: string = [
  "../../shared/corpus/",
  "../../../shared/corpus/",
].map((up) => fileURLToPath(new URL(up, import.meta.url))).find((path) => {
  try {
    return Deno.statSync(path).isDirectory;
  } catch {
    return false;
  }
}) ?? fileURLToPath(new URL("../../shared/corpus/", import.meta.url));

/** What a corpus test lacks: the corpus folder at `path`, when it is not there; else undefined. */
export function corpusMissing(path: string = CORPUS): string | undefined {
  try {
    if (Deno.statSync(path).isDirectory) return undefined;
  } catch {
    // Not there: said below.
  }
  return `no corpus at ${path} (the shared folder beside the repository)`;
}

/** What the corpus tests lack here (see {@linkcode corpusMissing}). */
export const CORPUS_MISSING: string | undefined = corpusMissing();

/** The `.jsonl` files under `dir`, sorted by name, folders first-walked in order. */
export async function* corpusFiles(dir: string): AsyncGenerator<string> {
  const entries = [];
  for await (const entry of Deno.readDir(dir)) entries.push(entry);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) yield* corpusFiles(path);
    else if (entry.name.endsWith(".jsonl")) yield path;
  }
}

/** The corpus as homes: its Claude Code projects, and its rollouts laid out as a Codex home. */
export async function corpusSources(dir: string): Promise<SearchSource[]> {
  const day = join(dir, "codex", "2026", "02", "23");
  await Deno.mkdir(day, { recursive: true });
  for (const path of await homeFiles(join(CORPUS, "codex"))) {
    const name = path.slice(path.lastIndexOf("/") + 1);
    if (name.startsWith("rollout-")) await Deno.copyFile(path, join(day, name));
  }
  return [
    { format: "claude-code", root: join(CORPUS, "claude", "projects"), flags: ["--claude"] },
    { format: "codex", root: join(dir, "codex"), flags: ["--codex"] },
  ];
}
