/**
 * The session page's "Continue in…": `POST /sessions/<id>/export` with `{"to": <target>}`
 * writes the session as a new session of that tool, in its home (src/export: the source is only
 * read, the new file written whole, never over one), and answers what `export --json` prints.
 * A state-changing request: serve takes it only from its own origin, as JSON (`_access.ts`).
 *
 * @module
 */
import { z } from "zod";
import { exportSession } from "../export/mod.ts";
import { ADAPTERS, type Env } from "../formats/mod.ts";
import type { ContinueTarget } from "../html/mod.ts";
import { HttpError, jsonResponse, readJsonBody } from "../http/mod.ts";
import { firstIssue } from "../record/mod.ts";

/** The path of a session's export: `/sessions/<id>/export`. */
export const EXPORT_PATH: RegExp = /^\/sessions\/([^/]+)\/export\/?$/;

/** The body of `POST /sessions/<id>/export`. */
export interface ExportRequest {
  /** The tool the session goes to: an adapter's flag (`codex`, `claude`, `gemini`). */
  to: string;
}

const ExportRequestSchema: z.ZodType<ExportRequest> = z.object({ to: z.string().min(1) });

/**
 * The tools a session page offers to continue a session in: every adapter that writes its
 * tool's format, by its flag and its name in a sentence.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { continueTargets } from "./mod.ts";
 * assert(continueTargets().some((target) => target.to === "codex" && target.tool === "Codex"));
 * ```
 */
export function continueTargets(): ContinueTarget[] {
  return ADAPTERS.filter((adapter) => adapter.write !== undefined).map((adapter) => ({
    to: adapter.flag,
    tool: adapter.shortTool,
  }));
}

/**
 * Exports the session file at `path` to the target the request's body names, into the tool's
 * home as `env` names it; answers `{target, id, path, cwd, resume, carried, degraded}`.
 *
 * @throws {HttpError} `usage` (400) for a body that names no target, or one that is not offered
 */
export async function exportResponse(request: Request, path: string, env: Env): Promise<Response> {
  const parsed = ExportRequestSchema.safeParse(await readJsonBody(request, { maxBytes: 4096 }));
  if (!parsed.success) {
    throw new HttpError("usage", `Invalid body: ${firstIssue(parsed.error, "invalid body")}`);
  }
  const targets = continueTargets();
  const { to } = parsed.data;
  if (!targets.some((target) => target.to === to)) {
    throw new HttpError(
      "usage",
      `Unknown target ${JSON.stringify(to)}: a session continues in ${
        targets.map((target) => target.to).join(", ")
      }`,
    );
  }
  const exported = await exportSession(path, { to, env });
  const { target, id, cwd, resume, carried, degraded } = exported;
  return jsonResponse(200, { target, id, path: exported.path, cwd, resume, carried, degraded });
}
