/**
 * What Gemini's API refuses in the history a session file holds, checked: the file replayed as
 * its repair will leave its lines, the history built as Gemini's resume sends it, and every
 * model content's function calls answered by the function responses of the user content right
 * after it, one response for each call ("Please ensure that the number of function response
 * parts is equal to the number of function call parts of the function call turn."). The same
 * analysis tells repair what to write and move.
 *
 * @module
 */
import { badLineFindings, type ValidationFinding } from "../_repair_types.ts";
import type { Json } from "../_line.ts";
import { type BadLine, readView, type ViewPlace } from "../_view.ts";
import { type SentContent, sentContents, sketchOf, type SourcedPart } from "./_history.ts";
import { GEMINI_LINES } from "./_lines.ts";
import { isLegacyFile, readLegacyObject } from "./_legacy.ts";
import { GeminiReplay, type ReplayedMessage, roleOf } from "./_replay.ts";

/**
 * Where a copy of a message is, for the check and the repair: its line's place, and (for the
 * latest checkpoint line alone, which a repair may rewrite) the line's object.
 */
export type CheckPlace = ViewPlace & { value?: Json | undefined };

/** A call no response answers. */
export interface UnansweredCall {
  part: SourcedPart;
  message: ReplayedMessage<CheckPlace>;
  /**
   * The message its response goes right after: the last of the user content that follows the
   * call's content, or of the call's content when none follows (a response written after the
   * call's own message would split a content of several messages, and answer no call).
   */
  after: ReplayedMessage<CheckPlace>;
}

/** A response no call waits for (`orphan_output`), or a second one (`duplicate_output`). */
export interface StrayResponse {
  part: SourcedPart;
  message: ReplayedMessage<CheckPlace>;
  kind: "orphan_output" | "duplicate_output";
}

/** Everything the check learns. */
export interface GeminiAnalysis {
  bad: BadLine[];
  unanswered: UnansweredCall[];
  stray: StrayResponse[];
  /** The history, by message id. */
  messages: Map<string, ReplayedMessage<CheckPlace>>;
}

const keyOf = (part: SourcedPart) => part.id ?? `name:${part.name}`;

/** The calls and responses of one model content and the user content after it, paired. */
function pairTurn(
  calls: SourcedPart[],
  reply: SentContent | undefined,
): { unanswered: SourcedPart[]; stray: { part: SourcedPart; duplicate: boolean }[] } {
  const waiting = new Map(calls.map((part) => [keyOf(part), part]));
  const answered = new Set<string>();
  const stray: { part: SourcedPart; duplicate: boolean }[] = [];
  for (const part of reply?.parts.filter((p) => p.kind === "response") ?? []) {
    // A response without an id answers a waiting call of its name (as Gemini pairs them).
    const key = part.id === null
      ? [...waiting].find(([, call]) => call.name === part.name)?.[0]
      : keyOf(part);
    if (key !== undefined && waiting.delete(key)) {
      answered.add(key);
      continue;
    }
    stray.push({ part, duplicate: key !== undefined && answered.has(key) });
  }
  return { unanswered: [...waiting.values()], stray };
}

/** Pairs the calls and responses of a history as its request would carry them. */
export function pairHistory(
  messages: Map<string, ReplayedMessage<CheckPlace>>,
): Pick<GeminiAnalysis, "unanswered" | "stray"> {
  const contents = sentContents(messages.values());
  const unanswered: UnansweredCall[] = [];
  const stray: StrayResponse[] = [];
  const messageOf = (part: SourcedPart) => messages.get(part.messageId)!;
  contents.forEach((content, at) => {
    if (content.role === "model") {
      const calls = content.parts.filter((part) => part.kind === "call");
      if (calls.length === 0) return;
      const next = contents[at + 1];
      const reply = next?.role === "user" ? next : undefined;
      const paired = pairTurn(calls, reply);
      const last = (reply ?? content).messageIds.at(-1)!;
      // A `gemini` message's results from its `toolCalls` are a user content named after it.
      const after = messages.get(last) ?? messages.get(last.replace(/_response$/, ""))!;
      for (const part of paired.unanswered) {
        unanswered.push({ part, message: messageOf(part), after });
      }
      for (const { part, duplicate } of paired.stray) {
        const kind = duplicate ? "duplicate_output" : "orphan_output";
        stray.push({ part, message: messageOf(part), kind });
      }
      return;
    }
    const before = contents[at - 1];
    if (before?.role === "model" && before.parts.some((part) => part.kind === "call")) return;
    for (const part of content.parts.filter((p) => p.kind === "response")) {
      stray.push({ part, message: messageOf(part), kind: "orphan_output" });
    }
  });
  return { unanswered, stray };
}

/**
 * Feeds one line to the check's replay: its messages as sketches (no texts), the line's object
 * kept only while it is the latest checkpoint. The reader feeds one on its way too.
 */
export class CheckReplay {
  /** The replay of the history alone: what left it is of no use to the check. */
  readonly replay: GeminiReplay<CheckPlace>;
  #checkpoint: CheckPlace | undefined;

  /** Keeps none of the copies that leave the history. */
  constructor() {
    this.replay = new GeminiReplay<CheckPlace>({ keepDropped: false });
  }

  /** Feeds the parsed line `value`, at `line`. */
  feed(value: Json, line: ViewPlace): void {
    const { k, start, end, terminated, piece } = line;
    const place: CheckPlace = { k, line: line.line, start, end, terminated, piece };
    const role = roleOf(value);
    if (role === "message") return void this.replay.feed(sketchOf(value) as Json, place);
    const set = role === "checkpoint" ? value.$set as Json : undefined;
    const held = set?.messages ?? (role === "metadata" ? value.messages : undefined);
    if (!Array.isArray(held)) return void this.replay.feed(value, place);
    if (set) {
      if (this.#checkpoint) this.#checkpoint.value = undefined;
      this.#checkpoint = place;
      place.value = value;
    }
    const messages = held.map(sketchOf);
    this.replay.feed(set ? { $set: { ...set, messages } } : { ...value, messages }, place);
  }
}

/** Reads the session file at `path` (up to `sizeBytes`) as its repair will leave it, and checks it. */
export async function analyzeGemini(path: string, sizeBytes: number): Promise<GeminiAnalysis> {
  const bad: BadLine[] = [];
  const check = new CheckReplay();
  if (isLegacyFile(path)) {
    const legacy = await legacyLine(path, sizeBytes);
    if (legacy) check.feed(legacy.value, legacy);
  } else {
    for await (const item of readView(path, GEMINI_LINES, sizeBytes)) {
      if (item.bad) bad.push(item.bad);
      else check.feed(item.line.value, item.line);
    }
  }
  return analysisOf(check.replay.messages, bad);
}

/**
 * What a history of sketches (a check replay's, or a reader's once it has read each message's
 * last copy) says, with the file's bad lines.
 */
export function analysisOf(
  messages: Map<string, ReplayedMessage<CheckPlace>>,
  bad: BadLine[] = [],
): GeminiAnalysis {
  return { bad, ...pairHistory(messages), messages };
}

/** A legacy file's one object, as one line (its repair is Gemini's: it rewrites the file on resume). */
async function legacyLine(
  path: string,
  sizeBytes: number,
): Promise<ViewPlace & { value: Json } | undefined> {
  const legacy = await readLegacyObject(path, sizeBytes);
  if (!("value" in legacy)) return undefined;
  return { k: 0, line: 1, start: 0, end: sizeBytes, terminated: true, piece: null, ...legacy };
}

/** What is wrong with a stray response, in words. */
export function strayWords(stray: StrayResponse): string {
  const id = stray.part.id ?? stray.part.name;
  return stray.kind === "duplicate_output"
    ? `a second function response for ${id} (Gemini's resume would send the call's one result twice)`
    : `a function response for ${id}, which no function call right before it makes`;
}

/** The validator's findings on an analysis, by line. */
export function geminiFindings(path: string, analysis: GeminiAnalysis): ValidationFinding[] {
  const findings = badLineFindings(analysis.bad);
  for (const { part, message } of analysis.unanswered) {
    const line = message.last.place.line;
    findings.push({
      kind: "unanswered_call",
      line,
      callId: part.id,
      message: `${path}:${line}: function call ${part.id ?? "without an id"} (${part.name}) ` +
        "has no function response right after it",
    });
  }
  for (const stray of analysis.stray) {
    const line = stray.message.last.place.line;
    findings.push({
      kind: "unexpected_result",
      line,
      callId: stray.part.id,
      message: `${path}:${line}: ${strayWords(stray)}`,
    });
  }
  return findings.sort((a, b) => a.line - b.line);
}
