/**
 * The search benchmark's homes: a Codex home and a Claude Code home together of a target
 * size, in sessions of at most 8 MB each in their real shapes (./testing/formats/scale.ts),
 * every tenth holding one prompt with the searched word. Generated once (seeded) into the
 * output folder and reused while its manifest matches.
 *
 * @module
 */
import { join } from "node:path";
import { sizeLabel } from "../../testing/generate/mod.ts";
import {
  claudeTranscriptLines,
  codexRolloutLines,
  writeLines,
} from "../../testing/formats/scale.ts";

/** Bumped whenever the files change, so cached ones are written again. */
const HOME_VERSION = 1;
const SESSION_BYTES = 8 << 20;

/** The word planted in every tenth session. */
export const SEARCHED_WORD = "tokenizer";

/** A generated pair of homes. */
export interface SearchHome {
  /** `CODEX_HOME` of the Codex sessions. */
  codexHome: string;
  /** `CLAUDE_CONFIG_DIR` of the Claude Code sessions. */
  claudeHome: string;
  /** The folder holding both (what ripgrep searches). */
  root: string;
  bytes: number;
  sessions: number;
  /** Sessions holding the word. */
  planted: number;
  spec: { size: number; seed: number; version: number };
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const TIME = "2026-02-23T12:00:00.000Z";

function plantedLine(format: "codex" | "claude-code", index: number): string {
  const text = `the ${SEARCHED_WORD} splits words at the apostrophe (session ${index})`;
  return format === "codex"
    ? JSON.stringify({
      timestamp: TIME,
      type: "response_item",
      payload: { type: "message", role: "user", content: [{ type: "input_text", text }] },
    })
    : JSON.stringify({
      parentUuid: null,
      isSidechain: false,
      type: "user",
      message: { role: "user", content: text },
      uuid: `00000000-0000-4000-9000-${hex(index, 12)}`,
      timestamp: TIME,
    });
}

/** The lines of one session, the planted prompt halfway when `plant`. */
function* sessionLines(
  format: "codex" | "claude-code",
  index: number,
  seed: number,
  bytes: number,
  plant: boolean,
): Generator<string> {
  const options = { targetBytes: bytes, seed: seed + index };
  let written = 0;
  let planted = !plant;
  for (
    const line of format === "codex" ? codexRolloutLines(options) : claudeTranscriptLines(options)
  ) {
    yield line;
    written += line.length + 1;
    if (!planted && written >= bytes / 2) {
      planted = true;
      yield plantedLine(format, index);
    }
  }
}

function sessionPath(root: string, format: "codex" | "claude-code", index: number): string {
  if (format === "claude-code") {
    const id = `7acd37a8-0000-4000-8000-${hex(index, 12)}`;
    return join(root, "claude", "projects", `-home-dev-p${index % 7}`, `${id}.jsonl`);
  }
  const id = `019c8a4c-0000-7000-8000-${hex(index, 12)}`;
  const day = String(1 + (index % 28)).padStart(2, "0");
  return join(
    root,
    "codex",
    "sessions",
    "2026",
    "02",
    day,
    `rollout-2026-02-${day}T12-00-00-${id}.jsonl`,
  );
}

/** The homes for `spec` under `outDir`, written unless the same ones are already there. */
export async function ensureSearchHome(
  outDir: string,
  spec: { size: number; seed: number },
): Promise<SearchHome> {
  const name = `search-${sizeLabel(spec.size)}-s${spec.seed}`;
  const root = join(outDir, name);
  const manifestPath = join(outDir, `${name}.json`);
  const wanted = { ...spec, version: HOME_VERSION };
  try {
    const known = JSON.parse(await Deno.readTextFile(manifestPath)) as SearchHome;
    if (JSON.stringify(known.spec) === JSON.stringify(wanted)) return known;
  } catch {
    // Not there yet, or unreadable: written below.
  }
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const count = Math.max(2, Math.ceil(spec.size / SESSION_BYTES));
  const each = Math.ceil(spec.size / count);
  let bytes = 0;
  let planted = 0;
  for (let index = 0; index < count; index++) {
    const format = index % 2 === 0 ? "claude-code" : "codex";
    const plant = index % 10 === 3 || (count < 10 && index === 1);
    if (plant) planted++;
    const path = sessionPath(root, format, index);
    await Deno.mkdir(join(path, ".."), { recursive: true });
    bytes += await writeLines(path, sessionLines(format, index, spec.seed, each, plant));
  }
  const home: SearchHome = {
    codexHome: join(root, "codex"),
    claudeHome: join(root, "claude"),
    root,
    bytes,
    sessions: count,
    planted,
    spec: wanted,
  };
  await Deno.writeTextFile(manifestPath, JSON.stringify(home, null, 2) + "\n");
  return home;
}
