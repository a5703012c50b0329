/**
 * What a Claude Code transcript counts as one of its lines: any JSON object (its reader passes
 * over the types it does not know), linked to its parent by `uuid` and `parentUuid`.
 *
 * @module
 */
import type { LineLinks, LineRules } from "../_view.ts";

/** Top-level keys are never inside a string: their quotes are not escaped. */
const OWN_UUID = /[{,]"uuid":"([^"\\]+)"/;
const OWN_PARENT = /[{,]"parentUuid":(null|"([^"\\]+)")/;

/** A damaged line's parent and own uuid, as far as they can be read: its children re-link to it. */
function linksOf(text: string): LineLinks | undefined {
  const parent = OWN_PARENT.exec(text);
  if (!parent) return undefined;
  return { uuid: OWN_UUID.exec(text)?.[1] ?? null, parentUuid: parent[2] ?? null };
}

/** The line rules of Claude Code transcripts, for their check and repair. */
export const CLAUDE_LINES: LineRules = {
  notALine: () => undefined,
  links: linksOf,
  firstKeys: ["parentUuid", "type", "uuid", "leafUuid", "sessionId", "timestamp"],
};
