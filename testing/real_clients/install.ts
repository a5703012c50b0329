/**
 * The real Codex CLI, Claude Code and Gemini CLI, pinned, installed from npm into a cache folder outside the
 * repository (`TURNLOG_REAL_CLIENTS_DIR`, else `$XDG_CACHE_HOME/turnlog/real-clients`, else
 * `~/.cache/turnlog/real-clients`), for the real-client suite (`./denow task real-clients`): the
 * real tools judge what turnlog reads and repairs. Each package ships its native binary, so an
 * install needs the npm registry only.
 *
 * @module
 */
import { join } from "node:path";

/** A pinned npm package of a real tool. */
export interface RealClientSpec {
  /** The short name used in folders and messages. */
  name: "codex" | "claude-code" | "gemini-cli";
  /** The npm package. */
  package: string;
  /** The pinned version. */
  version: string;
  /** The command the package installs under `node_modules/.bin`. */
  command: string;
  /** What `<command> --version` prints on its first line. */
  versionLine: string;
}

/** Codex CLI 0.169.0 (`history_mode: "paginated"` rollouts, every record with an `ordinal`). */
export const CODEX: RealClientSpec = {
  name: "codex",
  package: "@openai/codex",
  version: "0.169.0",
  command: "codex",
  versionLine: "codex-cli 0.169.0",
};

/** Claude Code 2.1.328. */
export const CLAUDE_CODE: RealClientSpec = {
  name: "claude-code",
  package: "@anthropic-ai/claude-code",
  version: "2.1.328",
  command: "claude",
  versionLine: "2.1.328 (Claude Code)",
};

/** Gemini CLI 0.61.0 (JSONL sessions; it leaves a stub file on resume). */
export const GEMINI_CLI: RealClientSpec = {
  name: "gemini-cli",
  package: "@google/gemini-cli",
  version: "0.61.0",
  command: "gemini",
  versionLine: "0.61.0",
};

/** Every pinned tool. */
export const REAL_CLIENTS: readonly RealClientSpec[] = [CODEX, CLAUDE_CODE, GEMINI_CLI];

/** An installed real tool. */
export interface RealClient {
  spec: RealClientSpec;
  /** The command to run (npm's launcher of the package). */
  bin: string;
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

/**
 * The installed tool, or the reason it is not there, without running npm: what a test file
 * asks at load time to decide `Deno.test({ ignore })`.
 */
export function installedRealClient(spec: RealClientSpec): RealClient | string {
  const bin = binOf(spec);
  try {
    Deno.statSync(bin);
  } catch {
    return `${spec.package}@${spec.version} is not installed in ${prefixOf(spec)} ` +
      "(./denow task real-clients installs it)";
  }
  return { spec, bin };
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
 * checks that its binary runs and is the pinned version.
 *
 * @returns the tool, or one line saying why it cannot be had here
 */
export async function installRealClient(spec: RealClientSpec): Promise<RealClient | string> {
  const found = installedRealClient(spec);
  if (typeof found === "string") {
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
  }
  const bin = binOf(spec);
  const version = await output(bin, ["--version"]);
  if (!version.ok) return version.reason;
  const first = version.stdout.split("\n")[0];
  if (first !== spec.versionLine) {
    return `${bin} --version printed "${first}", not "${spec.versionLine}"`;
  }
  return { spec, bin };
}
