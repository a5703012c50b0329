/**
 * The real Codex CLI, Claude Code and Gemini CLI (and ccusage, the peer `usage` is compared
 * with), pinned, installed from npm into a cache folder outside the
 * repository (`TURNLOG_REAL_CLIENTS_DIR`, else `$XDG_CACHE_HOME/turnlog/real-clients`, else
 * `~/.cache/turnlog/real-clients`), for the real-client suite (`./denow task real-clients`): the
 * real tools judge what turnlog reads and repairs. Each package ships its native binary, so an
 * install needs the npm registry only. A binary of the user's own (`TURNLOG_CODEX_BIN`,
 * `TURNLOG_CLAUDE_BIN`, `TURNLOG_GEMINI_BIN`) takes the pinned one's place; the version a test
 * names is always the one `<bin> --version` printed.
 *
 * @module
 */
import { join } from "node:path";

/** A pinned npm package of a real tool. */
export interface RealClientSpec {
  /** The short name used in folders and messages. */
  name: "codex" | "claude-code" | "gemini-cli" | "ccusage";
  /** The npm package. */
  package: string;
  /** The pinned version. */
  version: string;
  /** The command the package installs under `node_modules/.bin`. */
  command: string;
  /** What `<command> --version` prints on its first line. */
  versionLine: string;
  /** The variable that names a binary of the user's own instead (`TURNLOG_CODEX_BIN`). */
  binVariable: string;
  /** The flag of `./denow task real-clients` that does (`--codex-bin`). */
  binFlag: string;
}

/** Codex CLI 0.171.0 (`history_mode: "paginated"` rollouts, every record with an `ordinal`). */
export const CODEX: RealClientSpec = {
  name: "codex",
  package: "@openai/codex",
  version: "0.171.0",
  command: "codex",
  versionLine: "codex-cli 0.171.0",
  binVariable: "TURNLOG_CODEX_BIN",
  binFlag: "--codex-bin",
};

/** Claude Code 2.1.332. */
export const CLAUDE_CODE: RealClientSpec = {
  name: "claude-code",
  package: "@anthropic-ai/claude-code",
  version: "2.1.332",
  command: "claude",
  versionLine: "2.1.332 (Claude Code)",
  binVariable: "TURNLOG_CLAUDE_BIN",
  binFlag: "--claude-bin",
};

/** Gemini CLI 0.61.0 (JSONL sessions; it leaves a stub file on resume). */
export const GEMINI_CLI: RealClientSpec = {
  name: "gemini-cli",
  package: "@google/gemini-cli",
  version: "0.61.0",
  command: "gemini",
  versionLine: "0.61.0",
  binVariable: "TURNLOG_GEMINI_BIN",
  binFlag: "--gemini-bin",
};

/**
 * ccusage 20.0.24, the peer `usage` is compared with (its package ships the native binary of
 * each platform as an optional dependency; `@ccusage/codex` is now only a pointer to it).
 */
export const CCUSAGE: RealClientSpec = {
  name: "ccusage",
  package: "ccusage",
  version: "20.0.24",
  command: "ccusage",
  versionLine: "ccusage 20.0.24",
  binVariable: "TURNLOG_CCUSAGE_BIN",
  binFlag: "--ccusage-bin",
};

/** Every pinned tool: the three real tools, and ccusage, the peer of `usage`. */
export const REAL_CLIENTS: readonly RealClientSpec[] = [CODEX, CLAUDE_CODE, GEMINI_CLI, CCUSAGE];

/** An installed real tool. */
export interface RealClient {
  spec: RealClientSpec;
  /** The command to run (npm's launcher of the package, or the user's own binary). */
  bin: string;
  /** The version `<bin> --version` printed (`0.171.0`): what test names say. */
  version: string;
  /** True when the binary is the user's own (named by `binVariable`), not the pinned install. */
  own: boolean;
}

/** The cache folder the pinned tools are installed under. */
export function realClientsDir(): string {
  const explicit = Deno.env.get("TURNLOG_REAL_CLIENTS_DIR");
  if (explicit) return explicit;
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? join(Deno.env.get("HOME") ?? "/tmp", ".cache");
  return join(cache, "turnlog", "real-clients");
}

function prefixOf(spec: RealClientSpec): string {
  return join(realClientsDir(), `${spec.name}-${spec.version}`);
}

function binOf(spec: RealClientSpec): string {
  return join(prefixOf(spec), "node_modules", ".bin", spec.command);
}

/** The version in the first line `--version` prints: `codex-cli 0.171.0` gives `0.171.0`. */
export function versionOf(line: string): string | undefined {
  return /\d+\.\d+\.\d+[\w.+-]*/.exec(line)?.[0];
}

/** The binary of the user's own the environment names for `spec`, if any. */
function ownBin(spec: RealClientSpec): string | undefined {
  const named = Deno.env.get(spec.binVariable);
  return named === undefined || named === "" ? undefined : named;
}

/**
 * The tool to run, or the reason it is not there, without running npm: the user's own binary
 * when `spec.binVariable` names one, else the pinned install; either way it must run and say
 * its version (`<bin> --version`), which is what tests name. What a test file asks at load
 * time to decide `Deno.test({ ignore })`: a tool that cannot be had is never run anyway.
 */
export function installedRealClient(spec: RealClientSpec): RealClient | string {
  const own = ownBin(spec);
  const bin = own ?? binOf(spec);
  if (own === undefined) {
    try {
      Deno.statSync(bin);
    } catch {
      return `${spec.package}@${spec.version} is not installed in ${prefixOf(spec)} ` +
        "(./denow task real-clients installs it)";
    }
  }
  let said: Deno.CommandOutput;
  try {
    said = new Deno.Command(bin, { args: ["--version"], stdout: "piped", stderr: "piped" })
      .outputSync();
  } catch (error) {
    return `${bin} could not run: ${(error as Error).message}`;
  }
  const first = new TextDecoder().decode(said.stdout).trim().split("\n")[0] ?? "";
  const version = versionOf(first);
  if (!said.success || version === undefined) {
    return `${bin} --version exited ${said.code} printing "${first}": not a ${spec.package}`;
  }
  if (own === undefined && first !== spec.versionLine) {
    // Another version at the pinned place: not what the pinned name promises.
    return `${bin} --version printed "${first}", not "${spec.versionLine}" ` +
      `(name it with ${spec.binVariable} to run it)`;
  }
  return { spec, bin, version, own: own !== undefined };
}

/** What `command args` printed, or the reason it could not run. */
async function output(command: string, args: string[]): Promise<
  { ok: true; stdout: string } | { ok: false; reason: string }
> {
  try {
    const result = await new Deno.Command(command, { args, stdout: "piped", stderr: "piped" })
      .output();
    const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes).trim();
    if (result.success) return { ok: true, stdout: decode(result.stdout) };
    const said = decode(result.stderr).split("\n").at(-1) ?? "";
    return { ok: false, reason: `${command} exited ${result.code}: ${said}` };
  } catch (error) {
    return { ok: false, reason: `${command} could not run: ${(error as Error).message}` };
  }
}

/**
 * Installs the pinned tool with npm when it is missing (about 10 s and 400 MB each), then
 * checks that its binary runs and is the pinned version. The user's own binary (named by
 * `spec.binVariable`) is taken as it is: nothing is installed for it.
 *
 * @returns the tool, or one line saying why it cannot be had here
 */
export async function installRealClient(spec: RealClientSpec): Promise<RealClient | string> {
  const found = installedRealClient(spec);
  if (typeof found !== "string" || ownBin(spec) !== undefined) return found;
  // There but not the pinned version: not installed over.
  if (await Deno.stat(binOf(spec)).then(() => true, () => false)) return found;
  await Deno.mkdir(prefixOf(spec), { recursive: true });
  const npm = await output("npm", [
    "install",
    "--prefix",
    prefixOf(spec),
    "--no-save",
    "--no-audit",
    "--no-fund",
    "--no-update-notifier",
    "--loglevel=error",
    `${spec.package}@${spec.version}`,
  ]);
  if (!npm.ok) return `npm install ${spec.package}@${spec.version}: ${npm.reason}`;
  return installedRealClient(spec);
}
