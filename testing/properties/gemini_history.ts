/**
 * Random Gemini CLI session files built from the shapes its history is made of, for the
 * property that repair converges: message lines (a prompt, a text, calls with and without
 * their results, function responses with and without an id, for a recent call or for none),
 * a message written again under an id it had (Gemini rewrites a message as it changes),
 * checkpoints (`$set` of `messages`) holding any of them, and `$set`s of metadata. Made up
 * here, never copied from a real file.
 *
 * @module
 */
import fc from "fast-check";

/** One line of the file, before call ids are given out. */
type Step =
  | { kind: "message"; message: MessageSpec }
  | { kind: "checkpoint"; messages: MessageSpec[] }
  | { kind: "touch" };

/** A message: its kind, and whether it takes the id of an earlier one. */
interface MessageSpec {
  kind: "prompt" | "text" | "calls" | "response" | "responseNoId" | "strayResponse";
  /** Results of its calls, one flag a call (calls only). */
  results: boolean[];
  /** Index (from the newest) of the earlier message whose id it takes, or null for a new one. */
  again: number | null;
  /** Index (from the newest) of the call a response answers. */
  call: number;
}

const messageArbitrary: fc.Arbitrary<MessageSpec> = fc.record({
  kind: fc.constantFrom<MessageSpec["kind"]>(
    "prompt",
    "text",
    "calls",
    "calls",
    "response",
    "response",
    "responseNoId",
    "strayResponse",
  ),
  results: fc.array(fc.boolean(), { minLength: 1, maxLength: 2 }),
  again: fc.option(fc.nat({ max: 3 }), { freq: 6 }),
  call: fc.nat({ max: 1 }),
});

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: messageArbitrary.map((message): Step => ({ kind: "message", message })) },
  {
    weight: 3,
    arbitrary: fc.array(messageArbitrary, { minLength: 1, maxLength: 4 }).map((messages): Step => ({
      kind: "checkpoint",
      messages,
    })),
  },
  { weight: 1, arbitrary: fc.constant<Step>({ kind: "touch" }) },
);

/** An arbitrary Gemini CLI session file's text, every line ended. */
export const geminiHistoryArbitrary: fc.Arbitrary<string> = fc.array(stepArbitrary, {
  minLength: 2,
  maxLength: 8,
}).map(writeSteps);

/** The file the steps make: call ids and message ids given out in order. */
function writeSteps(steps: Step[]): string {
  const ids: string[] = [];
  const calls: string[] = [];
  let clock = Date.parse("2026-12-01T10:00:00.000Z");
  const time = () => new Date(clock += 1000).toISOString();
  const message = (spec: MessageSpec): Record<string, unknown> => {
    const id = spec.again !== null && ids.length > 0
      ? ids[Math.max(0, ids.length - 1 - spec.again)]!
      : `m${ids.length + 1}`;
    ids.push(id);
    const timestamp = time();
    const response = (callId: string | null, name = "read_file") => ({
      functionResponse: {
        ...(callId === null ? {} : { id: callId }),
        name,
        response: { output: "x" },
      },
    });
    switch (spec.kind) {
      case "prompt":
        return { id, timestamp, type: "user", content: [{ text: "Read it" }] };
      case "text":
        return { id, timestamp, type: "gemini", content: "Done.", model: "gemini-2.5-flash" };
      case "calls":
        return {
          id,
          timestamp,
          type: "gemini",
          content: "",
          model: "gemini-2.5-flash",
          toolCalls: spec.results.map((result) => {
            const callId = `read_file__${calls.length + 1}`;
            calls.push(callId);
            return {
              id: callId,
              name: "read_file",
              args: { file_path: "a.txt" },
              status: result ? "success" : "cancelled",
              ...(result ? { result: [response(callId)] } : {}),
            };
          }),
        };
      case "response":
      case "responseNoId":
      case "strayResponse": {
        const callId = calls[calls.length - 1 - spec.call] ?? "read_file__none";
        const part = spec.kind === "response"
          ? response(callId)
          : spec.kind === "responseNoId"
          ? response(null)
          : response("read_file__stray", "list_directory");
        return { id, timestamp, type: "user", content: [part] };
      }
    }
  };
  const lines: unknown[] = [{
    sessionId: "5a7e0c1d-0000-4000-8000-000000000001",
    projectHash: "9f2c0000000000000000000000000000000000000000000000000000000000aa",
    startTime: time(),
    lastUpdated: time(),
    kind: "main",
  }];
  for (const step of steps) {
    if (step.kind === "message") lines.push(message(step.message));
    else if (step.kind === "checkpoint") {
      lines.push({ $set: { messages: step.messages.map(message), lastUpdated: time() } });
    } else lines.push({ $set: { lastUpdated: time() } });
  }
  return lines.map((line) => `${JSON.stringify(line)}\n`).join("");
}
