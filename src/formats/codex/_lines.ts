/**
 * What a Codex rollout counts as one of its lines: a JSON object with a `type`, and a
 * `response_item` whose item turnlog can map.
 *
 * @module
 */
import { obj, str } from "../_line.ts";
import type { LineRules } from "../_view.ts";
import { mapCodexItem } from "./_items.ts";

/** The line rules of Codex rollouts, for their check and repair. */
export const CODEX_LINES: LineRules = {
  notALine(value) {
    const type = str(value, "type");
    if (type === undefined) {
      return { kind: "unknown_type", what: 'a JSON object without a "type": not a Codex record' };
    }
    if (type !== "response_item") return undefined;
    const mapped = mapCodexItem(obj(value, "payload") ?? {}, {
      toolName: () => undefined,
      reported: () => undefined,
    });
    return mapped.invalid === undefined
      ? undefined
      : { kind: "invalid_record", what: mapped.invalid };
  },
  firstKeys: ["type", "timestamp"],
};
