/**
 * A Codex rollout moved with its project (`restore --cwd`): the rollout's place does not name
 * the folder; `session_meta.payload.cwd` and each `turn_context.payload.cwd` do (and a turn
 * context's writable roots, when they are the old folder).
 *
 * @module
 */
import type { Relocation } from "../_relocate.ts";
import { obj, str } from "../_line.ts";

/** Codex's relocation: the session's and each turn context's `cwd`. */
export const codexRelocation: Relocation = {
  place: (rel) => rel,
  line(value, cwd, from) {
    const type = str(value, "type");
    if (type !== "session_meta" && type !== "turn_context") return [];
    const payload = obj(value, "payload");
    if (payload === undefined || typeof payload.cwd !== "string") return [];
    const changed: string[] = [];
    if (payload.cwd !== cwd) {
      payload.cwd = cwd;
      changed.push(`${type}.payload.cwd`);
    }
    const sandbox = obj(payload, "sandbox_policy");
    const roots = sandbox?.writable_roots;
    if (from !== null && sandbox && Array.isArray(roots) && roots.includes(from)) {
      sandbox.writable_roots = roots.map((root) => root === from ? cwd : root);
      changed.push(`${type}.payload.sandbox_policy.writable_roots`);
    }
    return changed;
  },
  markedBy: ['"cwd"'],
  cwdOf(value) {
    const type = str(value, "type");
    if (type !== "session_meta" && type !== "turn_context") return undefined;
    const payload = obj(value, "payload");
    return payload === undefined ? undefined : str(payload, "cwd");
  },
};
