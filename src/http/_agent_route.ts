/**
 * The seed's HTTP route: `POST /api/agent/stream` runs one turn and streams its events as
 * Server-Sent Events (`event: <type>` / `data: <json>`); `POST
 * /api/agent/approvals/<runId>/<callId>` answers a pending approval. A request handler
 * only; `cli/serve.ts` puts it on a port.
 *
 * @module
 */
import type OpenAI from "openai";
import { z } from "zod";
import { ApprovalRegistry } from "../runtime/_approvals.ts";
import type { Policy, WireApi } from "../record/_schemas.ts";
import type { RunEvent } from "../runtime/_events.ts";
import { type Compactor, runTurn } from "../runtime/_turn.ts";

/** The body of `POST /api/agent/stream`. */
export const StreamRequestSchema = z.object({
  message: z.string().min(1),
  sessionId: z.string().min(1).optional(),
});

/** The body of `POST /api/agent/approvals/<runId>/<callId>`. */
export const ApprovalBodySchema = z.object({
  decision: z.enum(["approve", "deny"]),
  reason: z.string().optional(),
});

/** What the handler runs turns with. */
export interface AgentHandlerOptions {
  client: OpenAI;
  model: string;
  modelProvider: string;
  wireApi?: WireApi | undefined;
  /** The policy of new sessions (a resumed one keeps its own). */
  policy?: Policy | undefined;
  sessionsDir?: string | undefined;
  workspace?: string | undefined;
  maxRounds?: number | undefined;
  /** Where approvals wait; absent: a registry with a 5-minute timeout. */
  approvals?: ApprovalRegistry | undefined;
  /** Context compaction for every turn; absent: none. */
  compactor?: Compactor | undefined;
}

const encoder = new TextEncoder();

/** One event in the Server-Sent Events format. */
export function formatSseEvent(event: RunEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "invalid body";
  return issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message;
}

async function readJson(request: Request): Promise<{ ok: true; value: unknown } | { ok: false }> {
  try {
    return { ok: true, value: await request.json() };
  } catch {
    return { ok: false };
  }
}

const APPROVAL_PATH = /^\/api\/agent\/approvals\/([^/]+)\/([^/]+)$/;

/**
 * The request handler of the agent routes. A client that disconnects cancels its run (the run
 * still records how it ended).
 */
export function createAgentHandler(
  options: AgentHandlerOptions,
): (request: Request) => Promise<Response> {
  const approvals = options.approvals ?? new ApprovalRegistry();

  const stream = async (request: Request): Promise<Response> => {
    const body = await readJson(request);
    if (!body.ok) return json(400, { error: "The body is not valid JSON" });
    const parsed = StreamRequestSchema.safeParse(body.value);
    if (!parsed.success) return json(400, { error: `Invalid body: ${firstIssue(parsed.error)}` });
    const controller = new AbortController();
    const events = runTurn({
      message: parsed.data.message,
      sessionId: parsed.data.sessionId,
      sessionsDir: options.sessionsDir,
      client: options.client,
      model: options.model,
      modelProvider: options.modelProvider,
      wireApi: options.wireApi,
      policy: parsed.data.sessionId === undefined ? options.policy : undefined,
      workspace: options.workspace,
      approver: approvals.approver,
      signal: controller.signal,
      maxRounds: options.maxRounds,
      compactor: options.compactor,
    });
    const sse = new ReadableStream<Uint8Array>({
      async pull(stream) {
        const next = await events.next();
        if (next.done) stream.close();
        else stream.enqueue(encoder.encode(formatSseEvent(next.value)));
      },
      async cancel() {
        controller.abort();
        // Let the run finish its records (cancelled outputs, run_finished).
        for await (const _ of events) { /* drained */ }
      },
    });
    return new Response(sse, {
      headers: {
        "content-type": "text/event-stream",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
      },
    });
  };

  const approve = async (request: Request, runId: string, callId: string) => {
    const body = await readJson(request);
    if (!body.ok) return json(400, { error: "The body is not valid JSON" });
    const parsed = ApprovalBodySchema.safeParse(body.value);
    if (!parsed.success) {
      return json(400, {
        error: `Invalid body: ${
          firstIssue(parsed.error)
        } (send {"decision": "approve"} or {"decision": "deny"})`,
      });
    }
    const approved = parsed.data.decision === "approve";
    const reason = parsed.data.reason ??
      (approved ? "approved through the approval route" : "denied through the approval route");
    if (!approvals.resolve(runId, callId, { approved, reason })) {
      return json(404, { error: `No approval is pending for run ${runId}, call ${callId}` });
    }
    return json(200, { ok: true, approved });
  };

  return async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/api/agent/stream") {
      if (request.method !== "POST") return json(405, { error: "Use POST" });
      return await stream(request);
    }
    const match = APPROVAL_PATH.exec(url.pathname);
    if (match) {
      if (request.method !== "POST") return json(405, { error: "Use POST" });
      return await approve(request, decodeURIComponent(match[1]!), decodeURIComponent(match[2]!));
    }
    return json(404, {
      error:
        `No route ${request.method} ${url.pathname}; the routes are POST /api/agent/stream and POST /api/agent/approvals/<runId>/<callId>`,
    });
  };
}
