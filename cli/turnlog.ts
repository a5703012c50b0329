/**
 * `turnlog <command>`: one command for what turnlog does (resume, inspect, repair, import,
 * serve, search). The npm package's launcher (`bin/turnlog.mjs`) runs each command as the
 * `deno.json` task of its name does (that task's permission set, flags and script), and this
 * file for `--help`, `--version` and any other name; run directly, this file runs the command
 * itself under the permissions it was given. In a checkout, `./denow task <command>` runs it.
 *
 * @module
 */
import config from "../deno.json" with { type: "json" };
import { CHECKOUT_TASK, TASK } from "./_commands.ts";
import { runAsProcess, stderr, stdout } from "./_output.ts";
import { late } from "../src/_late.ts";
import { TOOL_STARTS } from "../src/formats/_tool_starts.ts";

/** A command's module, loaded when it runs, out of Deno's sight at start (src/_late.ts). */
const command = <T>(specifier: string): Promise<T> => late<T>(specifier, import.meta.url);

/** The other tools' names, for `--help`: `Codex CLI, Claude Code`. */
export interface ToolWords {
  /** Each tool's name, joined: `Codex CLI, Claude Code`. */
  tools: string;
}

/** A command of `turnlog`: one line for `--help`, and how it runs. */
export interface Subcommand {
  /** What it does, in one line (worded with the other tools' names). */
  about: (words: ToolWords) => string;
  /** Runs it with the arguments after its name; returns the exit code. */
  run: (args: string[]) => Promise<number>;
}

/** The commands, in the order `--help` lists them (each loaded only when it runs). */
export const COMMANDS: Readonly<Record<string, Subcommand>> = {
  resume: {
    about: () => "start a session with a message, or continue one (no arguments: a demo)",
    run: async (args) => (await command<typeof import("./resume.ts")>("./resume.ts")).cli(args),
  },
  inspect: {
    about: ({ tools }) => `show a session turn by turn, or list sessions (turnlog, ${tools})`,
    run: async (args) => (await command<typeof import("./inspect.ts")>("./inspect.ts")).cli(args),
  },
  repair: {
    about: () => "say how a damaged session file would be repaired; --write repairs it",
    run: async (args) =>
      (await command<typeof import("./inspect.ts")>("./inspect.ts")).cli(["--repair", ...args]),
  },
  import: {
    about: () => "continue another tool's session in turnlog, as a new session",
    run: async (args) => (await command<typeof import("./import.ts")>("./import.ts")).cli(args),
  },
  export: {
    about: () => "continue a session in another tool (Codex CLI, Claude Code, Gemini CLI, turnlog)",
    run: async (args) => (await command<typeof import("./export.ts")>("./export.ts")).cli(args),
  },
  serve: {
    about: () => "serve the session browser and the agent's streaming route on loopback",
    run: async (args) => (await command<typeof import("./serve.ts")>("./serve.ts")).cli(args),
  },
  search: {
    about: ({ tools }) => `find sessions by what was said in them (turnlog, ${tools})`,
    run: async (args) => (await command<typeof import("./search.ts")>("./search.ts")).cli(args),
  },
  archive: {
    about: () => "copy every home's sessions into the archive, incrementally (--check verifies it)",
    run: async (args) => (await command<typeof import("./archive.ts")>("./archive.ts")).cli(args),
  },
  restore: {
    about: () => "write an archived session back into its tool's home, or into a moved project",
    run: async (args) => (await command<typeof import("./restore.ts")>("./restore.ts")).cli(args),
  },
  usage: {
    about: ({ tools }) =>
      `tokens and cost per day, month, session, project or model (turnlog, ${tools})`,
    run: async (args) => (await command<typeof import("./usage.ts")>("./usage.ts")).cli(args),
  },
  doctor: {
    about: ({ tools }) =>
      `say what needs you in every home (${tools}): sessions to repair or archive, new formats`,
    run: async (args) => (await command<typeof import("./doctor.ts")>("./doctor.ts")).cli(args),
  },
};

/** The version, from `deno.json`. */
export const VERSION: string = config.version;

/** The help text (the tools' names from their starts: no reader is loaded). */
export function help(): string {
  const words = { tools: TOOL_STARTS.map((start) => start.tool).join(", ") };
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, command]) =>
    `  ${name.padEnd(width)}  ${command.about(words)}`
  );
  return `Usage: ${TASK} <command> [options]

Sessions of agents, kept so that a crash loses nothing: continue them, read them turn by
turn, repair them, bring in other tools' sessions.

Commands:
${lines.join("\n")}

${TASK} <command> --help shows a command's options.
Options: -h, --help (this text), -V, --version (the version: ${VERSION})
`;
}

/** Runs `turnlog` with its arguments; returns the exit code. */
export async function main(args: string[]): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === "-h" || name === "--help" || name === "help") {
    const topic = name === "help" ? rest[0] : undefined;
    if (topic !== undefined && Object.hasOwn(COMMANDS, topic)) {
      return await COMMANDS[topic]!.run(["--help"]);
    }
    stdout(help());
    return 0;
  }
  if (name === "-V" || name === "--version") {
    stdout(`turnlog ${VERSION}\n`);
    return 0;
  }
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (command === undefined) {
    stderr(`turnlog: unknown command ${JSON.stringify(name)}\n`);
    // In a checkout, `./denow task` alone lists the tasks, these commands among them.
    stderr(`The commands: ${TASK === CHECKOUT_TASK ? CHECKOUT_TASK : `${TASK} --help`}\n`);
    return 2;
  }
  return await command.run(rest);
}

if (import.meta.main) await runAsProcess(main);
