/**
 * Approvals bound to the client that started the run: each stream's response carries a new
 * random token, and an approval of that run's calls is taken only with it. A page on another
 * origin never sees the token (it cannot read serve's responses), and run ids do not stand in
 * for it.
 *
 * @module
 */
import { HttpError } from "../http/mod.ts";
import type { ApprovalRegistry, Approver } from "../runtime/mod.ts";

/**
 * The header of a stream's response that holds its run's approval token, and of an approval
 * request that must hold it.
 */
export const APPROVAL_TOKEN_HEADER = "turnlog-approval-token";

/** A new approval token: 32 random bytes in hex. */
function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** True when `a` equals `b`, in a time that does not tell how much of them matched. */
function sameToken(a: string, b: string): boolean {
  let differ = a.length ^ b.length;
  for (let i = 0; i < b.length; i++) differ |= (a.charCodeAt(i) | 0) ^ b.charCodeAt(i);
  return differ === 0;
}

/** One stream's token, the approver its run waits on, and the end of the binding. */
export interface IssuedToken {
  /** The token the stream's response carries. */
  token: string;
  /** Binds each run that asks it to `token`, then waits on the registry. */
  approver: Approver;
  /** Forgets the runs bound to `token` (the stream ended). */
  forget(): void;
}

/** The approval tokens of the runs whose streams are open. */
export class RunTokens {
  readonly #byRun = new Map<string, string>();

  /** A new token for one stream, whose run's approvals wait on `approvals`. */
  issue(approvals: ApprovalRegistry): IssuedToken {
    const token = newToken();
    const runIds = new Set<string>();
    return {
      token,
      approver: {
        decide: (request, signal) => {
          this.#byRun.set(request.runId, token);
          runIds.add(request.runId);
          return approvals.approver.decide(request, signal);
        },
      },
      forget: () => {
        for (const runId of runIds) this.#byRun.delete(runId);
      },
    };
  }

  /** True when run `runId` has asked for an approval and its stream is open. */
  has(runId: string): boolean {
    return this.#byRun.has(runId);
  }

  /**
   * Refuses an approval request for run `runId` that lacks the run's token.
   *
   * @throws {HttpError} 403 when the token is missing, or is not the run's
   */
  check(request: Request, runId: string): void {
    const token = request.headers.get(APPROVAL_TOKEN_HEADER);
    if (token === null) {
      throw new HttpError(
        "forbidden",
        `An approval needs the ${APPROVAL_TOKEN_HEADER} header the run's stream came with`,
      );
    }
    const expected = this.#byRun.get(runId);
    if (expected !== undefined && !sameToken(token, expected)) {
      throw new HttpError(
        "forbidden",
        `The ${APPROVAL_TOKEN_HEADER} is not the one of run ${runId}`,
      );
    }
  }
}
