/**
 * The benchmark's Codex, Claude Code and Gemini CLI files: one large session of a target size
 * in a home laid out as each tool leaves it (`<home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`,
 * `<home>/projects/<project>/<id>.jsonl`, `<home>/.gemini/tmp/<project>/chats/session-*.jsonl`),
 * so tools that find sessions in a home (ccusage,
 * claude-run) read the very file turnlog reads. Generated once (seeded, see ./scale.ts) into
 * an output folder and reused while their manifests match.
 *
 * @module
 */
import { join } from "node:path";
import { sizeLabel } from "../generate/mod.ts";
import { CLAUDE_SESSION_ID } from "./claude_builder.ts";
import { CODEX_SESSION_ID } from "./codex_builder.ts";
import { GEMINI_SESSION_ID } from "./gemini_builder.ts";
import {
  claudeTranscriptLines,
  codexRolloutLines,
  geminiCompressedSessionLines,
  writeLines,
} from "./scale.ts";

/** The formats the benchmark has files of. */
export type ForeignBenchFormat = "codex" | "claude-code" | "gemini";

/** Bumped whenever the files change, so cached ones are written again. */
const HOMES_VERSION = 1;

/** A foreign session file of a target size, in its home. */
export interface ForeignBenchSession {
  format: ForeignBenchFormat;
  /** The tool's home: `CODEX_HOME`, `CLAUDE_CONFIG_DIR` or `GEMINI_CLI_HOME` for that tool. */
  home: string;
  /** The session file. */
  path: string;
  /** The session id the file names. */
  id: string;
  bytes: number;
  /** What was asked for, and by which version of this module. */
  spec: { size: number; seed: number; version: number };
}

/**
 * The session of `format` for `spec` under `outDir`, written unless a file of the same size,
 * seed and version is already there.
 */
export async function ensureForeignSession(
  outDir: string,
  format: ForeignBenchFormat,
  spec: { size: number; seed: number },
): Promise<ForeignBenchSession> {
  const name = `${format}-${sizeLabel(spec.size)}-s${spec.seed}`;
  const home = join(outDir, name);
  const manifestPath = join(outDir, `${name}.json`);
  const wanted = { ...spec, version: HOMES_VERSION };
  try {
    const known = JSON.parse(await Deno.readTextFile(manifestPath)) as ForeignBenchSession;
    const size = (await Deno.stat(known.path)).size;
    if (JSON.stringify(known.spec) === JSON.stringify(wanted) && size === known.bytes) {
      return known;
    }
  } catch {
    // Not there yet, or unreadable: written below.
  }
  await Deno.remove(home, { recursive: true }).catch(() => {});
  const options = { targetBytes: spec.size, seed: spec.seed };
  const [path, id, lines] = format === "gemini"
    ? [
      join(home, ".gemini", "tmp", "bench", "chats", "session-2026-12-01T10-00-5a7e0c1d.jsonl"),
      GEMINI_SESSION_ID,
      geminiCompressedSessionLines(options),
    ]
    : format === "codex"
    ? [
      join(
        home,
        "sessions",
        "2026",
        "02",
        "23",
        `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`,
      ),
      CODEX_SESSION_ID,
      codexRolloutLines(options),
    ]
    : [
      join(home, "projects", "-home-dev-bench", `${CLAUDE_SESSION_ID}.jsonl`),
      CLAUDE_SESSION_ID,
      claudeTranscriptLines(options),
    ];
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const bytes = await writeLines(path, lines);
  const session: ForeignBenchSession = { format, home, path, id, bytes, spec: wanted };
  await Deno.writeTextFile(manifestPath, JSON.stringify(session, null, 2) + "\n");
  return session;
}
