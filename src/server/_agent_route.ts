/**
 * The agent route: `POST /api/agent/stream` runs one turn and streams its events as
 * Server-Sent Events (`event: <type>` / `data: <json>`); `POST
 * /api/agent/approvals/<runId>/<callId>` answers a pending approval, only with the token the
 * run's stream came with. Every request passes the checks of `accessRefusal` first.
 *
 * @module
 */
import { z } from "zod";
import {
  decodePathSegment,
  errorResponse,
  formatSse,
  HttpError,
  jsonResponse,
  readJsonBody,
  type SseEvent,
  sseResponse,
} from "../http/mod.ts";
import { type AccessOptions, accessRefusal } from "./_access.ts";
import { APPROVAL_TOKEN_HEADER, RunTokens } from "./_run_tokens.ts";
import { firstIssue, type Policy, type WireApi } from "../record/mod.ts";
import {
  ApprovalRegistry,
  type Compactor,
  type ModelConnection,
  type RunEvent,
  runTurn,
} from "../runtime/mod.ts";
import type { SessionStore } from "../store/mod.ts";

/** The body of `POST /api/agent/stream`. */
export interface StreamRequest {
  /** The user's message. */
  message: string;
  /** Continue this session (id or unique prefix); absent: start a new one. */
  sessionId?: string | undefined;
}

/** The body of `POST /api/agent/approvals/<runId>/<callId>`. */
export interface ApprovalBody {
  /** Let the call run, or not. */
  decision: "approve" | "deny";
  /** Why, for the record and the model. */
  reason?: string | undefined;
}

const StreamRequestSchema: z.ZodType<StreamRequest> = z.object({
  message: z.string().min(1),
  sessionId: z.string().min(1).optional(),
});

const ApprovalBodySchema: z.ZodType<ApprovalBody> = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().optional(),
});

/** What the handler runs turns with, and which Hosts it answers. */
export interface AgentHandlerOptions extends AccessOptions {
  /** The model endpoint every turn talks to. */
  connection: ModelConnection;
  /** The model of new sessions; absent: the connection's. */
  model?: string | undefined;
  /** The wire API of new sessions (a resumed one keeps its own). */
  wireApi?: WireApi | undefined;
  /** The policy of new sessions (a resumed one keeps its own). */
  policy?: Policy | undefined;
  /** The sessions root. */
  sessionsDir?: string | undefined;
  /** The store of the sessions (see `openStore`); absent: the file store at `sessionsDir`. */
  store?: SessionStore | undefined;
  /** The folder the tools work in. */
  workspace?: string | undefined;
  /** Model rounds per turn. */
  maxRounds?: number | undefined;
  /** Where approvals wait; absent: a registry with a 5-minute timeout. */
  approvals?: ApprovalRegistry | undefined;
  /** Context compaction for every turn; absent: none. */
  compactor?: Compactor | undefined;
  /**
   * The longest message a turn takes, in characters (default {@linkcode MAX_MESSAGE_CHARS});
   * a longer one is refused with 413 before anything is written.
   */
  maxMessageChars?: number | undefined;
}

/** The longest message a turn takes by default, in characters. */
export const MAX_MESSAGE_CHARS = 1_000_000;

/** Room for the rest of a request body beyond its message, in bytes. */
const BODY_OVERHEAD = 64 * 1024;

function frame(event: RunEvent): SseEvent {
  return { event: event.type, data: JSON.stringify(event) };
}

/** One event in the Server-Sent Events format: `event: <type>`, `data: <json>`. */
export function formatSseEvent(event: RunEvent): string {
  return formatSse(frame(event));
}

async function parseBody<T>(
  request: Request,
  schema: z.ZodType<T>,
  options: { maxBytes: number; hint?: string },
): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(request, { maxBytes: options.maxBytes }));
  if (!parsed.success) {
    const hint = options.hint ?? "";
    throw new HttpError(
      "usage",
      `Invalid body: ${firstIssue(parsed.error, "invalid body")}${hint}`,
    );
  }
  return parsed.data;
}

function streamTurn(
  options: AgentHandlerOptions,
  approvals: ApprovalRegistry,
  tokens: RunTokens,
) {
  const maxChars = options.maxMessageChars ?? MAX_MESSAGE_CHARS;
  // A character is at most 4 bytes of UTF-8 (6 in a JSON escape); JSON adds the rest.
  const maxBytes = maxChars * 6 + BODY_OVERHEAD;
  return async (request: Request): Promise<Response> => {
    const body = await parseBody(request, StreamRequestSchema, { maxBytes });
    if (body.message.length > maxChars) {
      throw new HttpError(
        "too_large",
        `The message is ${body.message.length} characters; this server takes at most ` +
          `${maxChars} (serve --max-message-chars)`,
      );
    }
    const controller = new AbortController();
    const issued = tokens.issue(approvals);
    const events = runTurn({
      message: body.message,
      sessionId: body.sessionId,
      sessionsDir: options.sessionsDir,
      store: options.store,
      connection: options.connection,
      model: body.sessionId === undefined ? options.model : undefined,
      wireApi: options.wireApi,
      policy: body.sessionId === undefined ? options.policy : undefined,
      workspace: options.workspace,
      approver: issued.approver,
      signal: controller.signal,
      maxRounds: options.maxRounds,
      compactor: options.compactor,
    });
    const frames = (async function* () {
      try {
        for await (const event of events) yield frame(event);
      } finally {
        issued.forget();
      }
    })();
    return sseResponse(frames, {
      headers: { [APPROVAL_TOKEN_HEADER]: issued.token },
      async onCancel() {
        controller.abort();
        // Let the run finish its records (cancelled outputs, run_finished).
        for await (const _ of events) { /* drained */ }
        issued.forget();
      },
    });
  };
}

function answerApproval(approvals: ApprovalRegistry, tokens: RunTokens) {
  return async (request: Request, runId: string, callId: string): Promise<Response> => {
    tokens.check(request, runId);
    const body = await parseBody(request, ApprovalBodySchema, {
      maxBytes: BODY_OVERHEAD,
      hint: ' (send {"decision": "approve"} or {"decision": "deny"})',
    });
    const approved = body.decision === "approve";
    const reason = body.reason ??
      (approved ? "approved through the approval route" : "denied through the approval route");
    if (!tokens.has(runId) || !approvals.resolve(runId, callId, { approved, reason })) {
      throw new HttpError("not_found", `No approval is pending for run ${runId}, call ${callId}`);
    }
    return jsonResponse(200, { ok: true, approved });
  };
}

const APPROVAL_PATH = /^\/api\/agent\/approvals\/([^/]+)\/([^/]+)$/;

function post(request: Request): void {
  if (request.method !== "POST") throw new HttpError("method_not_allowed", "Use POST");
}

/**
 * The request handler of the agent routes. A request refused by `accessRefusal` is answered
 * 403; a client that disconnects cancels its run (the run still records how it ended).
 */
export function createAgentHandler(
  options: AgentHandlerOptions,
): (request: Request) => Promise<Response> {
  const approvals = options.approvals ?? new ApprovalRegistry();
  const tokens = new RunTokens();
  const stream = streamTurn(options, approvals, tokens);
  const approve = answerApproval(approvals, tokens);
  return async (request) => {
    const url = new URL(request.url);
    try {
      const refused = accessRefusal(request, options);
      if (refused !== undefined) throw new HttpError("forbidden", refused);
      if (url.pathname === "/api/agent/stream") {
        post(request);
        return await stream(request);
      }
      const match = APPROVAL_PATH.exec(url.pathname);
      if (match) {
        post(request);
        return await approve(request, decodePathSegment(match[1]!), decodePathSegment(match[2]!));
      }
      throw new HttpError(
        "not_found",
        `No route ${request.method} ${url.pathname}; the routes are POST /api/agent/stream and POST /api/agent/approvals/<runId>/<callId>`,
      );
    } catch (error) {
      return errorResponse(error);
    }
  };
}
