/**
 * Flag parsing shared by the CLIs: `node:util` parseArgs's strict parse, turned into one-line
 * usage errors instead of stack traces. The parse is this module's own, token for token and
 * message for message `node:util`'s with `strict` and `allowPositionals` (a property test holds
 * it to that): importing `node:util` evaluates about 55 of Deno's Node modules, 15 ms of CPU
 * at every command's start (src/_path.ts).
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import type { parseArgs, ParseArgsConfig } from "node:util";
import type { ApprovalMode, Policy, WireApi } from "../src/record/mod.ts";
import { TASK } from "./_commands.ts";

/** A command line that cannot be run as given; the CLI prints it and exits with 2. */
export class UsageError extends TurnlogError {
  constructor(message: string, options?: ErrorOptions) {
    super("usage", message, options);
    this.name = "UsageError";
  }
}

/** The options a command takes: `parseArgs`'s, without `default` (this parse sets none). */
type Options = Record<
  string,
  Omit<NonNullable<ParseArgsConfig["options"]>[string], "default"> & { default?: never }
>;

/** What `parseArgs` gives for `options`, strict and with positionals. */
export type ParsedFlags<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/** The option a short flag names (its own letter when none does). */
function longOf(short: string, options: Options): string {
  for (const [name, option] of Object.entries(options)) if (option.short === short) return name;
  return short;
}

/** The option's type, when `options` has it. */
const typeOf = (name: string, options: Options) =>
  Object.hasOwn(options, name) ? options[name]!.type : undefined;

/** An option as the command line gives it: its name, how it was written, its value. */
interface OptionToken {
  name: string;
  raw: string;
  value: string | undefined;
  inline: boolean;
}

/** The first sentence of `node:util`'s message for a flag used wrongly, or undefined. */
function misuse(token: OptionToken, options: Options): string | undefined {
  if (!Object.hasOwn(options, token.name)) return `Unknown option '${token.raw}'`;
  const { short, type } = options[token.name]!;
  const both = `${short ? `-${short}, ` : ""}--${token.name}`;
  if (type === "string" && token.value === undefined) {
    return `Option '${both} <value>' argument missing`;
  }
  if (type === "boolean" && token.value !== undefined) {
    return `Option '${both}' does not take an argument`;
  }
  const value = token.value;
  if (!token.inline && value !== undefined && value.length > 1 && value[0] === "-") {
    return `Option '${token.raw}' argument is ambiguous`;
  }
  return undefined;
}

/**
 * A message's first line and sentence, as node's messages were cut (they go on with advice
 * about "--"; a flag's own name may hold a line break or ". X" too).
 */
const firstSentence = (message: string) =>
  message.split("\n")[0]!.split(/\. (?=[A-Z])/)[0]!.replace(/\.$/, "");

/**
 * Parses `argv` against `options` as `node:util` parseArgs does (strict, positionals allowed),
 * throwing {@linkcode UsageError} with the first sentence of its message for a flag used wrongly.
 */
export function parseFlags<O extends Options>(argv: string[], options: O): ParsedFlags<O> {
  const values: Record<string, unknown> = { __proto__: null };
  const positionals: string[] = [];
  const remaining = [...argv];
  const option = (token: OptionToken) => {
    const wrong = misuse(token, options);
    if (wrong !== undefined) throw new UsageError(firstSentence(wrong));
    if (token.name === "__proto__") return;
    const value = token.value ?? true;
    if (!options[token.name]!.multiple) values[token.name] = value;
    else ((values[token.name] ??= []) as unknown[]).push(value);
  };
  while (remaining.length > 0) {
    const arg = remaining.shift()!;
    const next = remaining[0];
    if (arg === "--") {
      positionals.push(...remaining);
      break;
    }
    if (arg.length === 2 && arg[0] === "-" && arg[1] !== "-") {
      const name = longOf(arg[1]!, options);
      const takes = typeOf(name, options) === "string" && next !== undefined;
      option({ name, raw: arg, value: takes ? remaining.shift() : undefined, inline: false });
    } else if (arg.length > 2 && arg[0] === "-" && arg[1] !== "-") {
      const name = longOf(arg[1]!, options);
      if (typeOf(name, options) === "string") {
        option({ name, raw: arg[0] + arg[1], value: arg.slice(2), inline: true });
        continue;
      }
      // A group of short flags, each its own; a flag that takes a value takes the rest.
      const expanded: string[] = [];
      for (let i = 1; i < arg.length; i++) {
        if (typeOf(longOf(arg[i]!, options), options) !== "string" || i === arg.length - 1) {
          expanded.push(`-${arg[i]}`);
        } else {
          expanded.push(`-${arg.slice(i)}`);
          break;
        }
      }
      remaining.unshift(...expanded);
    } else if (arg.length > 2 && arg.startsWith("--")) {
      const equals = arg.indexOf("=");
      if (!arg.includes("=", 3)) {
        const name = arg.slice(2);
        const takes = typeOf(name, options) === "string" && next !== undefined;
        option({ name, raw: arg, value: takes ? remaining.shift() : undefined, inline: false });
      } else {
        const name = arg.slice(2, equals);
        option({ name, raw: `--${name}`, value: arg.slice(equals + 1), inline: true });
      }
    } else positionals.push(arg);
  }
  return { values, positionals } as unknown as ParsedFlags<O>;
}

/**
 * The values of `--wire-api` and `--policy`, each type's every member (the compiler checks it):
 * not the record schemas, which would load zod on every command's start.
 */
const WIRE_APIS: Record<WireApi, true> = { responses: true, chat: true };
const APPROVAL_MODES: Record<ApprovalMode, true> = {
  auto: true,
  "ask-changes": true,
  "ask-all": true,
};

/** Checks a `--wire-api` value. */
export function parseWireApi(value: string | undefined): WireApi | undefined {
  if (value === undefined) return undefined;
  if (!Object.hasOwn(WIRE_APIS, value)) {
    throw new UsageError(`Invalid --wire-api "${value}": use "responses" or "chat"`);
  }
  return value as WireApi;
}

/** Checks a `--policy` value. */
export function parsePolicy(value: string | undefined): Policy | undefined {
  if (value === undefined) return undefined;
  if (!Object.hasOwn(APPROVAL_MODES, value)) {
    throw new UsageError(
      `Invalid --policy "${value}": use "auto" (never ask), "ask-changes" (ask before changes) or "ask-all" (ask for every tool)`,
    );
  }
  return { approval: value as ApprovalMode };
}

/** Checks a positive whole number flag. */
export function parsePositiveInt(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new UsageError(`Invalid --${name} "${value}": expected a whole number above 0`);
  }
  return n;
}

/** What `deno task resume` was asked to do. */
export interface ResumeArgs {
  help: boolean;
  /** The user's message (the positional arguments joined by spaces). */
  message: string | undefined;
  session: string | undefined;
  last: boolean;
  /** Fork this session and continue the fork. */
  fork: string | undefined;
  /** With `fork`: keep the history before this turn. */
  atTurn: number | undefined;
  sessionsDir: string | undefined;
  /** `--store`: a postgres:// URL or a sessions folder. */
  store?: string | undefined;
  model: string | undefined;
  wireApi: WireApi | undefined;
  policy: Policy | undefined;
  workspace: string | undefined;
  json: boolean;
  maxRounds: number | undefined;
  compactThreshold: number | undefined;
}

const RESUME_FLAGS = {
  help: { type: "boolean", short: "h" },
  session: { type: "string", short: "s" },
  last: { type: "boolean" },
  fork: { type: "string" },
  "at-turn": { type: "string" },
  "sessions-dir": { type: "string" },
  store: { type: "string" },
  model: { type: "string" },
  "wire-api": { type: "string" },
  policy: { type: "string" },
  workspace: { type: "string" },
  json: { type: "boolean" },
  "max-rounds": { type: "string" },
  "compact-threshold": { type: "string" },
} as const;

/** Parses the arguments of `deno task resume` (not the no-argument demo). */
export function parseResumeArgs(argv: string[]): ResumeArgs {
  const { values, positionals } = parseFlags(argv, RESUME_FLAGS);
  const args: ResumeArgs = {
    help: values.help === true,
    message: positionals.length > 0 ? positionals.join(" ") : undefined,
    session: values.session,
    last: values.last === true,
    fork: values.fork,
    atTurn: parsePositiveInt("at-turn", values["at-turn"]),
    sessionsDir: values["sessions-dir"],
    store: values.store,
    model: values.model,
    wireApi: parseWireApi(values["wire-api"]),
    policy: parsePolicy(values.policy),
    workspace: values.workspace,
    json: values.json === true,
    maxRounds: parsePositiveInt("max-rounds", values["max-rounds"]),
    compactThreshold: parsePositiveInt("compact-threshold", values["compact-threshold"]),
  };
  if (args.help) return args;
  const targets = [args.session !== undefined, args.last, args.fork !== undefined].filter(Boolean);
  if (targets.length > 1) {
    throw new UsageError("Use one of --session <id>, --last and --fork <id>");
  }
  if (args.atTurn !== undefined && args.fork === undefined) {
    throw new UsageError("--at-turn goes with --fork <id>");
  }
  if (args.message === undefined || args.message.trim() === "") {
    throw new UsageError(`A message is required, e.g. ${TASK} resume "list the files"`);
  }
  return args;
}

/**
 * Whether a command's argument names a file rather than a session id: it contains `/` (or
 * `\\`) or ends in `.jsonl`.
 */
export function isPath(target: string): boolean {
  return target.includes("/") || target.includes("\\") || target.endsWith(".jsonl");
}
