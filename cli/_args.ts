/**
 * Flag parsing shared by the CLIs: `node:util` parseArgs with strict checking, turned into
 * one-line usage errors instead of stack traces.
 *
 * @module
 */
import { TurnlogError } from "../src/errors/mod.ts";
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { ApprovalMode, Policy, WireApi } from "../src/record/mod.ts";
import { TASK } from "./_commands.ts";

/** A command line that cannot be run as given; the CLI prints it and exits with 2. */
export class UsageError extends TurnlogError {
  constructor(message: string, options?: ErrorOptions) {
    super("usage", message, options);
    this.name = "UsageError";
  }
}

type Options = NonNullable<ParseArgsConfig["options"]>;

/** Parses `argv` against `options`, throwing {@linkcode UsageError} for an unknown flag. */
export function parseFlags<O extends Options>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    // node's messages go on with advice about "--"; the first sentence is the point.
    const message = (error as Error).message.split("\n")[0]!.split(/\. (?=[A-Z])/)[0]!;
    throw new UsageError(message.replace(/\.$/, ""));
  }
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
