/**
 * Approvals: which tool calls a policy lets run without asking, and the approvers that ask
 * (on a terminal, or over HTTP through a registry of pending requests). A denial is not an
 * error of the run: the model gets an output saying the call was denied and not to retry it.
 *
 * @module
 */
import type { ApprovalMode } from "../record/mod.ts";

/** A tool call waiting for a decision. */
export interface ApprovalRequest {
  /** The run asking. */
  runId: string;
  /** The call waiting. */
  callId: string;
  /** The tool to run. */
  name: string;
  /** The JSON arguments string the model sent. */
  arguments: string;
}

/** An approver's answer; `reason` says who or what decided, for the record and the model. */
export interface ApprovalDecision {
  /** True to let the call run. */
  approved: boolean;
  /** Who or what decided, for the record and the model. */
  reason: string;
}

/** Decides whether a tool call may run. An abort of `signal` must end the wait as a denial. */
export interface Approver {
  /** Decides one call; an abort of `signal` ends the wait as a denial. */
  decide(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision>;
}

/**
 * Whether a call needs an approval: never under "auto", for tools that change something under
 * "ask-changes", always under "ask-all".
 */
export function needsApproval(mode: ApprovalMode, tool: { changes: boolean }): boolean {
  if (mode === "auto") return false;
  if (mode === "ask-changes") return tool.changes;
  return true;
}

/**
 * A wait as a person reads it: whole milliseconds under a second, else seconds with at most
 * one decimal ("10 ms", "1 second", "1.5 seconds"), never rounded down to nothing.
 */
function waitText(ms: number): string {
  if (ms < 1000) return `${Math.max(1, Math.round(ms))} ms`;
  const seconds = Math.round(ms / 100) / 10;
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}

/** The tool output the model gets for a denied call. */
export function deniedOutput(name: string, reason: string): string {
  return `Approval denied: ${reason}. The user did not allow this ${name} call; do not retry it. ` +
    "Continue without it, or tell the user what you wanted to do.";
}

/** The reason a terminal approver gives when there is no terminal to ask on. */
export const NO_TERMINAL_REASON = "no terminal to ask for approval";

/** An approver that denies every call, with one reason. */
export function denyingApprover(reason: string): Approver {
  return { decide: () => Promise.resolve({ approved: false, reason }) };
}

/** An approver that approves every call (for tests and scripts that choose it knowingly). */
export function approvingApprover(reason = "approved by the caller"): Approver {
  return { decide: () => Promise.resolve({ approved: true, reason }) };
}

/** Where a terminal approver asks; the defaults are the process's stdin and stderr. */
export interface TerminalApproverOptions {
  /** Whether there is a terminal to ask on (default: stdin is one). */
  isTerminal?: () => boolean;
  /** Reads one answer line; null at end of input. */
  readLine?: () => Promise<string | null>;
  /** Writes the question (default: stderr). */
  write?: (text: string) => void;
}

async function readStdinLine(): Promise<string | null> {
  const bytes: number[] = [];
  const one = new Uint8Array(1);
  while (true) {
    const n = await Deno.stdin.read(one);
    if (n === null) {
      return bytes.length === 0 ? null : new TextDecoder().decode(new Uint8Array(bytes));
    }
    if (one[0] === 10) return new TextDecoder().decode(new Uint8Array(bytes));
    bytes.push(one[0]!);
  }
}

/**
 * Asks y/n on the terminal. Without a terminal (stdin redirected, a CI job) it denies with
 * {@linkcode NO_TERMINAL_REASON}: nobody can say yes, and waiting would hang.
 */
export function terminalApprover(options: TerminalApproverOptions = {}): Approver {
  const isTerminal = options.isTerminal ?? (() => Deno.stdin.isTerminal());
  const readLine = options.readLine ?? readStdinLine;
  const write = options.write ??
    ((text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text)));
  return {
    async decide(request, signal) {
      if (!isTerminal()) return { approved: false, reason: NO_TERMINAL_REASON };
      write(`Allow ${request.name} ${request.arguments}? [y/N] `);
      const cancelled = new Promise<null>((resolve) => {
        if (signal.aborted) resolve(null);
        signal.addEventListener("abort", () => resolve(null), { once: true });
      });
      const answer = await Promise.race([readLine(), cancelled]);
      if (signal.aborted) return { approved: false, reason: "the run was cancelled" };
      if (answer === null) return { approved: false, reason: "no answer (end of input)" };
      const approved = /^\s*y(es)?\s*$/i.test(answer);
      return { approved, reason: approved ? "approved on the terminal" : "denied on the terminal" };
    },
  };
}

/**
 * Pending approvals of the runs a server hosts, keyed by run id and call id. A run's approver
 * waits until {@linkcode ApprovalRegistry.resolve} is called for its call (the HTTP route), the
 * timeout passes (a denial), or the run is cancelled (a denial).
 */
export class ApprovalRegistry {
  readonly #pending = new Map<string, (decision: ApprovalDecision) => void>();
  /** How long a call waits for a decision before it counts as denied, in milliseconds. */
  readonly timeoutMs: number;

  /** A registry whose approvals wait at most `timeoutMs` (default 5 minutes). */
  constructor(options: { timeoutMs?: number } = {}) {
    this.timeoutMs = options.timeoutMs ?? 5 * 60_000;
  }

  static #key(runId: string, callId: string): string {
    return `${runId}/${callId}`;
  }

  /** The approver that waits on this registry. */
  get approver(): Approver {
    return {
      decide: (request, signal) => this.#wait(request, signal),
    };
  }

  #wait(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalDecision> {
    const key = ApprovalRegistry.#key(request.runId, request.callId);
    return new Promise((resolve) => {
      const finish = (decision: ApprovalDecision) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
        this.#pending.delete(key);
        resolve(decision);
      };
      const onAbort = () => finish({ approved: false, reason: "the run was cancelled" });
      const timer = setTimeout(
        () =>
          finish({
            approved: false,
            reason: `no decision within ${waitText(this.timeoutMs)}`,
          }),
        this.timeoutMs,
      );
      this.#pending.set(key, finish);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** The keys (`runId/callId`) of the calls waiting for a decision. */
  pending(): string[] {
    return [...this.#pending.keys()];
  }

  /** Answers a waiting call; false when no such call is waiting (unknown, or already decided). */
  resolve(runId: string, callId: string, decision: ApprovalDecision): boolean {
    const finish = this.#pending.get(ApprovalRegistry.#key(runId, callId));
    if (!finish) return false;
    finish(decision);
    return true;
  }
}
