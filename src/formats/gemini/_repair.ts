/**
 * The repair plan of a Gemini CLI session file: bad lines (torn, glued) to the sidecar with
 * the records they hold written back; a user message of function responses right after each
 * function call that has none (its response an error saying the call was interrupted); and
 * each message whose function responses no call waits for (a second copy of a result, a
 * result without its call) taken out: its lines moved to the sidecar, or the checkpoint line
 * that holds it rewritten without it.
 *
 * @module
 */
import { readRange } from "../../io/mod.ts";
import { isObject, type Json } from "../_line.ts";
import { movedBadLine } from "../_moved.ts";
import {
  type ForeignInsertedLine,
  type ForeignMovedLine,
  type ForeignRepair,
  type ForeignRewrittenLine,
  INTERRUPTED_RESULT,
} from "../_repair_types.ts";
import {
  analyzeGemini,
  type CheckPlace,
  geminiFindings,
  type StrayResponse,
  strayWords,
} from "./_check.ts";
import { partsOf, responseOf, resultParts, toolCallsOf } from "./_history.ts";
import { isLegacyFile } from "./_legacy.ts";
import type { Copy, ReplayedMessage } from "./_replay.ts";

type Message = ReplayedMessage<CheckPlace>;

/** What the plan is built of, line by line. */
interface Plan {
  path: string;
  moved: ForeignMovedLine[];
  /** Pieces of bad lines taken out, by line. */
  pieces: Map<number, Set<number>>;
  /** Pieces of glued lines written back without some of their parts, by line and piece. */
  pieceDrops: Map<number, Map<number, Drop>>;
  /** Messages (and parts of messages, by message) taken out of checkpoint lines, by line. */
  fromSets: Map<number, SetEdit>;
  /** Message lines rewritten without some of their parts. */
  trimmed: { place: CheckPlace; drop: Drop; why: string }[];
  leftAsIs: string[];
}

/** What a checkpoint line loses (whole messages, parts of others) and gains (responses). */
interface SetEdit {
  line: CheckPlace;
  drop: Set<number>;
  parts: Map<number, Drop>;
  /** Messages written after the message at an index: the responses of its calls. */
  added: Map<number, Json[]>;
  why: string;
}

/** Parts a message loses: of its `content`, or of the results its `toolCalls` hold. */
interface Drop {
  from: "content" | "toolCalls";
  parts: Set<number>;
}

const bytesOf = (line: CheckPlace) => line.end - line.start - (line.terminated ? 1 : 0);

/** Whether every part of a message is one of the stray responses (so it can go whole). */
function onlyStray(message: Message, strays: StrayResponse[]): boolean {
  const parts = partsOf(message.value.content);
  return message.value.type === "user" && parts.length === strays.length &&
    parts.every((part) => responseOf(part) !== undefined);
}

function setEdit(plan: Plan, place: CheckPlace, why: string): SetEdit {
  const entry = plan.fromSets.get(place.line) ??
    { line: place, drop: new Set(), parts: new Map(), added: new Map(), why };
  plan.fromSets.set(place.line, entry);
  return entry;
}

/** Takes a message out of the file: every copy of it since it came into the history. */
function takeOut(plan: Plan, message: Message, strays: StrayResponse[]): void {
  const why = strayWords(strays[0]!);
  for (const { place, inSet } of message.copies) {
    if (inSet !== null) {
      // (A live copy in a checkpoint is in the latest one, whose object the check keeps.)
      if (place.piece !== null || place.value === undefined) {
        plan.leftAsIs.push(`line ${place.line}: ${why}, in a checkpoint glued to another line`);
        continue;
      }
      setEdit(plan, place, why).drop.add(inSet);
    } else if (place.piece !== null) {
      const set = plan.pieces.get(place.line) ?? new Set();
      plan.pieces.set(place.line, set.add(place.piece));
    } else {
      plan.moved.push({
        line: place.line,
        kind: strays[0]!.kind,
        start: place.start,
        end: place.end,
        bytes: bytesOf(place),
        message: `${plan.path}:${place.line}: ${why}`,
        split: null,
      });
    }
  }
}

/**
 * Takes the stray parts out of a message that holds more (a real result, a text), or out of
 * the results a model message's `toolCalls` hold: its last copy rewritten without them (the
 * earlier copies it supersedes stay as they are).
 */
function trimParts(plan: Plan, message: Message, strays: StrayResponse[]): void {
  const why = strayWords(strays[0]!);
  const { place, inSet } = message.last;
  const from = strays[0]!.part.fromToolCalls ? "toolCalls" : "content";
  const drop: Drop = { from, parts: new Set(strays.map((stray) => stray.part.index)) };
  if (place.piece !== null && inSet === null) {
    // The glued line is split into its records one a line: this one is written without them.
    const drops = plan.pieceDrops.get(place.line) ?? new Map<number, Drop>();
    plan.pieceDrops.set(place.line, drops.set(place.piece, drop));
  } else if (place.piece !== null || (inSet !== null && place.value === undefined)) {
    plan.leftAsIs.push(`line ${place.line}: ${why}, on a line glued to another`);
  } else if (inSet !== null) setEdit(plan, place, why).parts.set(inSet, drop);
  else plan.trimmed.push({ place, drop, why });
}

/** A message line rewritten without the parts taken out of it. */
async function trimmedLine(
  path: string,
  { place, drop, why }: Plan["trimmed"][number],
): Promise<ForeignRewrittenLine> {
  using file = await Deno.open(path, { read: true });
  const bytes = await readRange(file, { start: place.start, end: place.start + bytesOf(place) });
  const value = JSON.parse(new TextDecoder().decode(bytes)) as Json;
  return {
    line: place.line,
    kind: "orphan_output",
    start: place.start,
    end: place.end,
    bytes: bytesOf(place),
    message: `${path}:${place.line}: ${why}: taken out of the message`,
    text: JSON.stringify(withoutParts(value, drop)),
  };
}

/** A message without the parts at `drop` (of its content, or of its tool calls' results). */
function withoutParts(message: Json, drop: Drop): Json {
  const keep = (content: unknown, first: number) =>
    Array.isArray(content) ? content.filter((_, at) => !drop.parts.has(first + at)) : content;
  if (drop.from === "content") return { ...message, content: keep(message.content, 0) };
  let first = 0;
  const toolCalls = toolCallsOf(message).map((call) => {
    const count = resultParts(call).length;
    const at = first;
    first += count;
    if (count === 0 || ![...drop.parts].some((p) => p >= at && p < at + count)) return call;
    if (!Array.isArray(call.result)) {
      const { result: _, ...rest } = call;
      return rest;
    }
    return { ...call, result: keep(call.result, at) };
  });
  return { ...message, toolCalls };
}

/** A checkpoint line without the messages taken out of it. */
function rewrittenSet(
  path: string,
  { line, drop, parts, added, why }: SetEdit,
): ForeignRewrittenLine {
  const set = line.value?.$set as Record<string, unknown>;
  const messages = (set.messages as unknown[]).flatMap((message, at) => {
    const gone = parts.get(at);
    const kept = gone === undefined || !isObject(message) ? message : withoutParts(message, gone);
    return [...(drop.has(at) ? [] : [kept]), ...(added.get(at) ?? [])];
  });
  const taken = drop.size > 0 || parts.size > 0;
  return {
    line: line.line,
    kind: taken ? "orphan_output" : "orphan_call",
    start: line.start,
    end: line.end,
    bytes: bytesOf(line),
    message: `${path}:${line.line}: ${why}: ${
      taken ? "taken out of the checkpoint" : "a response written into the checkpoint"
    }`,
    text: JSON.stringify({ ...line.value, $set: { ...set, messages } }),
  };
}

/**
 * The response written for an interrupted call (`message` holds it): a user message of one
 * function response, written right after the copy `at`.
 */
function insertedResponse(
  plan: Plan,
  { message, at }: { message: Message; at: Copy<CheckPlace> },
  call: { id: string | null; name: string },
): ForeignInsertedLine | undefined {
  const { place, inSet } = at;
  const set = (place.value?.$set as { messages?: unknown[] } | undefined)?.messages;
  const callId = call.id ?? `${call.name}__line-${place.line}`;
  if (inSet !== null && set !== undefined && inSet !== set.length - 1) {
    // Messages follow it in the checkpoint: its response goes there, right after it.
    if (place.piece !== null) {
      plan.leftAsIs.push(
        `line ${place.line}: function call ${call.id} has no response, inside a checkpoint ` +
          "glued to another line",
      );
      return undefined;
    }
    const why = `function call ${call.id ?? call.name} had no response`;
    const edit = setEdit(plan, place, why);
    // The responses to one message's calls go in one user message, as Gemini sends them.
    const response = responseMessage(message, callId, call);
    const first = edit.added.get(inSet)?.[0];
    if (first) (first.content as unknown[]).push(...(response.content as unknown[]));
    else edit.added.set(inSet, [response]);
    return undefined;
  }
  const gone = plan.pieces.get(place.line) ?? new Set();
  let afterPiece: number | null = null;
  if (place.piece !== null) {
    afterPiece = -1;
    for (let at = 0; at <= place.piece; at++) if (!gone.has(at)) afterPiece++;
  }
  return {
    afterLine: place.line,
    afterPiece,
    at: place.end,
    callId,
    toolName: call.name,
    callLine: place.line,
    text: JSON.stringify(responseMessage(message, callId, call)),
  };
}

/**
 * Where a message written to follow `after` in the history goes: right after its last copy,
 * unless `next`, the message after it in the history, first appears before that copy (a message comes
 * in where it first appears, and its last copy only changes what it holds): then right after
 * its first copy.
 */
function placeAfter(next: Message | undefined, after: Message): Copy<CheckPlace> {
  if (next === undefined) return after.last;
  const first = next.copies[0]!;
  const before = (a: Copy<CheckPlace>, b: Copy<CheckPlace>) =>
    a.place.start < b.place.start ||
    (a.place.start === b.place.start && (a.inSet ?? -1) < (b.inSet ?? -1));
  return before(first, after.last) ? after.copies[0]! : after.last;
}

/** A user message of one function response saying the call was interrupted. */
function responseMessage(
  message: Message,
  callId: string,
  call: { id: string | null; name: string },
): Json {
  return {
    id: `turnlog-repair-${callId}`,
    timestamp: message.value.timestamp,
    type: "user",
    content: [{
      functionResponse: {
        ...(call.id === null ? {} : { id: call.id }),
        name: call.name,
        response: { error: INTERRUPTED_RESULT },
      },
    }],
  };
}

/**
 * Works out the repair of the Gemini CLI session file at `path` as it is now (up to
 * `sizeBytes`), with what its check found before. A legacy single-object file is left as it
 * is (Gemini rewrites it as a `.jsonl` file when it resumes it).
 */
export async function planGeminiRepair(path: string, sizeBytes: number): Promise<ForeignRepair> {
  const analysis = await analyzeGemini(path, sizeBytes);
  const findings = geminiFindings(path, analysis);
  const plan: Plan = {
    path,
    moved: analysis.bad.map(movedBadLine),
    pieces: new Map(),
    pieceDrops: new Map(),
    fromSets: new Map(),
    trimmed: [],
    leftAsIs: [],
  };
  if (isLegacyFile(path)) {
    if (findings.length > 0) {
      plan.leftAsIs.push("a legacy single-object file: Gemini rewrites it when it resumes it");
    }
    return {
      format: "gemini",
      moved: [],
      rewritten: [],
      inserted: [],
      leftAsIs: plan.leftAsIs,
      findings,
    };
  }
  const byMessage = Map.groupBy(analysis.stray, (stray) => stray.message);
  for (const [message, strays] of byMessage) {
    const fromCalls = strays.filter((stray) => stray.part.fromToolCalls);
    if (fromCalls.length > 0) trimParts(plan, message, fromCalls);
    const own = strays.filter((stray) => !stray.part.fromToolCalls);
    if (own.length === 0) continue;
    if (fromCalls.length === 0 && onlyStray(message, own)) takeOut(plan, message, own);
    else if (fromCalls.length === 0) trimParts(plan, message, own);
    else plan.leftAsIs.push(`line ${message.last.place.line}: ${strayWords(own[0]!)}`);
  }
  const history = [...analysis.messages.values()];
  const order = new Map(history.map((message, at) => [message, at]));
  const inserted = analysis.unanswered.flatMap(({ part, message, after }) =>
    insertedResponse(
      plan,
      { message, at: placeAfter(history[order.get(after)! + 1], after) },
      part,
    ) ??
      []
  );
  for (const m of plan.moved) {
    const gone = plan.pieces.get(m.line);
    const drops = plan.pieceDrops.get(m.line);
    m.split = m.split?.map((piece, at) => {
      const drop = drops?.get(at);
      if (drop === undefined) return piece;
      return { ...piece, text: JSON.stringify(withoutParts(JSON.parse(piece.text) as Json, drop)) };
    }).filter((_, at) => !gone?.has(at)) ?? null;
    if (m.split?.length === 0) m.split = null;
  }
  return {
    format: "gemini",
    moved: plan.moved.sort((a, b) => a.line - b.line),
    rewritten: [
      ...[...plan.fromSets.values()].map((entry) => rewrittenSet(path, entry)),
      ...await Promise.all(plan.trimmed.map((trim) => trimmedLine(path, trim))),
    ].sort((a, b) => a.line - b.line),
    inserted: inserted.sort((a, b) => a.afterLine - b.afterLine),
    leftAsIs: plan.leftAsIs,
    findings,
  };
}
