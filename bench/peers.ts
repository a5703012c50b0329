/**
 * The tools turnlog is measured against, installed for the benchmark only: npm packages put
 * into the benchmark's output folder (git-ignored) the first time, with their exact versions,
 * never a dependency of the project or its tests. A peer that cannot be installed (no npm, no
 * network) is left out of the run, and the run says why.
 *
 * @module
 */
import { join, resolve } from "node:path";

/** A peer tool: where it runs from, or why it does not. */
export interface Peer {
  /** `name@version`, as installed. */
  spec: string;
  /** The file to run; undefined when it could not be installed. */
  entry: string | undefined;
  /** Why it is missing, when it is. */
  missing?: string;
}

/** The peers of a run. */
export interface Peers {
  /** ccusage's native binary (its npm launcher only starts it). */
  ccusage: Peer;
  /** claude-run's server script (a web UI over `~/.claude`), run by Node. */
  claudeRun: Peer & { node: string | undefined };
}

/** ccusage 20.0.24 still ships its Linux binary (20.0.26 does not). */
export const CCUSAGE = "ccusage@20.0.24";
/** The npm-published Claude Code transcript viewer that runs headless (a server). */
export const CLAUDE_RUN = "claude-run@0.3.0";

async function which(command: string): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("sh", { args: ["-c", `command -v ${command}`] }).output();
    const path = new TextDecoder().decode(out.stdout).trim();
    return out.success && path ? path : undefined;
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs `spec` into `prefix` (once) with npm; returns `entry` inside it, or why not. The
 * entry is made executable: ccusage's launcher does that on its first run, which the
 * benchmark skips by running the binary itself.
 */
async function install(spec: string, prefix: string, entry: string): Promise<Peer> {
  const path = join(prefix, entry);
  if (await exists(path)) {
    await Deno.chmod(path, 0o755);
    return { spec, entry: path };
  }
  const npm = await which("npm");
  if (npm === undefined) return { spec, entry: undefined, missing: "npm is not on PATH" };
  await Deno.mkdir(prefix, { recursive: true });
  const out = await new Deno.Command(npm, {
    args: ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", spec],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (out.success && await exists(path)) {
    await Deno.chmod(path, 0o755);
    return { spec, entry: path };
  }
  const why = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
  return { spec, entry: undefined, missing: `npm install ${spec} failed: ${why}` };
}

/** The peers, installed under `<outDir>/peers` when they are not yet. */
export async function ensurePeers(outDir: string): Promise<Peers> {
  const root = resolve(outDir, "peers");
  const ccusage = await install(
    CCUSAGE,
    join(root, "ccusage"),
    "node_modules/@ccusage/ccusage-linux-x64/bin/ccusage",
  );
  const claudeRun = await install(
    CLAUDE_RUN,
    join(root, "claude-run"),
    "node_modules/claude-run/dist/index.js",
  );
  const node = await which("node");
  if (claudeRun.entry && node === undefined) {
    return { ccusage, claudeRun: { ...claudeRun, entry: undefined, node, missing: "no node" } };
  }
  return { ccusage, claudeRun: { ...claudeRun, node } };
}
