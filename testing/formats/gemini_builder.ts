/**
 * Writes Gemini CLI session files in the shapes Gemini CLI 0.61 writes (see
 * `../shared/reference/gemini-cli.md`): the metadata line, a checkpoint of the injected
 * context, each message written again as it changes, a tool call's result both in the model
 * message's `toolCalls` and in a user message of `functionResponse` parts, `$set` lines of
 * `lastUpdated`. Made up here, never copied from a real file.
 *
 * @module
 */

/** The session id the builder's files carry unless told otherwise. */
export const GEMINI_SESSION_ID = "5a7e0c1d-0000-4000-8000-000000000001";

/** A tool call of a model message: its name, wire id, arguments and output. */
export interface BuiltCall {
  name: string;
  wire: string;
  args: Record<string, unknown>;
  /** Its output, or undefined for a call written without a result. */
  output?: string | undefined;
  status?: string;
}

/** One model reply: its text, its calls, its tokens. */
export interface BuiltReply {
  text: string;
  calls?: BuiltCall[];
  tokens?: { input: number; output: number; cached?: number; thoughts?: number };
  /** Leave out the user message of function responses (older files, interrupted writes). */
  noResponseMessage?: boolean;
  thoughts?: boolean;
}

/** A builder of one session file's lines. */
export class GeminiSessionBuilder {
  readonly lines: string[] = [];
  /** The history as Gemini's replay holds it: each message's last copy, by id. */
  readonly #history = new Map<string, unknown>();
  #clock = Date.parse("2026-12-01T10:00:00.000Z");
  #ids = 0;

  constructor(readonly sessionId: string = GEMINI_SESSION_ID, kind = "main") {
    const time = this.time();
    this.raw({
      sessionId,
      projectHash: "9f2c0000000000000000000000000000000000000000000000000000000000aa",
      startTime: time,
      lastUpdated: time,
      kind,
    });
  }

  /** The next time stamp (a second later each). */
  time(): string {
    this.#clock += 1000;
    return new Date(this.#clock).toISOString();
  }

  /** The next message id. */
  id(): string {
    return `00000000-0000-4000-8000-${String(++this.#ids).padStart(12, "0")}`;
  }

  /** Any line. */
  raw(value: unknown): this {
    this.lines.push(JSON.stringify(value));
    const record = value as { id?: unknown; $set?: { messages?: unknown }; $rewindTo?: unknown };
    if (typeof record.id === "string") this.#history.set(record.id, value);
    if (typeof record.$rewindTo === "string") {
      const ids = [...this.#history.keys()];
      const from = ids.indexOf(record.$rewindTo);
      for (const id of from === -1 ? ids : ids.slice(from)) this.#history.delete(id);
    }
    const checkpoint = record.$set?.messages;
    if (Array.isArray(checkpoint)) {
      this.#history.clear();
      for (const message of checkpoint) this.#history.set((message as { id: string }).id, message);
    }
    return this;
  }

  /**
   * A checkpoint of the whole history so far, as Gemini writes one when a session is resumed
   * (or `/compress`ed without shrinking it).
   */
  checkpoint(): this {
    return this.raw({ $set: { messages: [...this.#history.values()], lastUpdated: this.time() } });
  }

  #touch(): void {
    this.raw({ $set: { lastUpdated: this.time() } });
  }

  /** The checkpoint of the injected context Gemini writes at the start. */
  context(cwd = "/work/project"): this {
    const message = {
      id: "c0ffee00c0ffee00c0ffee00c0ffee00",
      timestamp: this.time(),
      type: "user",
      content: [{ text: `<session_context>\nWorkspace: ${cwd}\n</session_context>` }],
    };
    return this.raw({ $set: { messages: [message], lastUpdated: message.timestamp } });
  }

  /** A user prompt; returns its id through `ids` when given. */
  user(text: string, ids?: string[]): this {
    const id = this.id();
    ids?.push(id);
    this.raw({ id, timestamp: this.time(), type: "user", content: [{ text }] });
    this.#touch();
    return this;
  }

  /** A model reply: its first copy, then (with calls) the copy with `toolCalls` and results. */
  gemini(reply: BuiltReply, ids?: string[]): this {
    const id = this.id();
    ids?.push(id);
    const tokens = reply.tokens ?? { input: 100, output: 10 };
    const message = {
      id,
      timestamp: this.time(),
      type: "gemini",
      content: reply.text,
      thoughts: reply.thoughts
        ? [{ subject: "Plan", description: "Read first.", timestamp: this.time() }]
        : [],
      tokens: {
        input: tokens.input,
        output: tokens.output,
        cached: tokens.cached ?? 0,
        thoughts: tokens.thoughts ?? 0,
        tool: 0,
        total: tokens.input + tokens.output + (tokens.thoughts ?? 0),
      },
      model: "gemini-2.5-flash",
    };
    this.raw(message);
    this.#touch();
    const calls = reply.calls ?? [];
    if (calls.length === 0) return this;
    const toolCalls = calls.map((call) => ({
      id: `${call.name}__${call.wire}`,
      name: call.name,
      args: call.args,
      ...(call.output === undefined ? {} : { result: [this.response(call)] }),
      status: call.status ?? (call.output === undefined ? "cancelled" : "success"),
      timestamp: this.time(),
      displayName: call.name,
    }));
    this.raw({ ...message, toolCalls });
    const answered = calls.filter((call) => call.output !== undefined);
    if (answered.length > 0 && !reply.noResponseMessage) {
      this.raw({
        id: this.id(),
        timestamp: this.time(),
        type: "user",
        content: answered.map((call) => this.response(call)),
      });
      this.#touch();
    }
    return this;
  }

  /** A call's `functionResponse` part. */
  response(call: BuiltCall): Record<string, unknown> {
    const id = `${call.name}__${call.wire}`;
    return { functionResponse: { id, name: call.name, response: { output: call.output } } };
  }

  /** The file's text, every line ended. */
  text(): string {
    return this.lines.map((line) => `${line}\n`).join("");
  }
}

/** A clean session: context, a prompt, a tool call with its result, the answer. */
export function geminiToolSession(): GeminiSessionBuilder {
  return new GeminiSessionBuilder().context()
    .user("What does the README say?")
    .gemini({
      text: "Let me read it.",
      calls: [{
        name: "read_file",
        wire: "read_file_1_0",
        args: { file_path: "README.md" },
        output: "hello readme\n",
      }],
      thoughts: true,
    })
    .gemini({ text: "The README says hello.", tokens: { input: 130, output: 7, cached: 100 } });
}

/** A longer session: two calls in one reply, a second prompt, a rewind and a checkpoint. */
export function geminiBusySession(): GeminiSessionBuilder {
  const ids: string[] = [];
  const b = new GeminiSessionBuilder().context().user("Look around", ids).gemini({
    text: "Two looks.",
    calls: [
      { name: "list_directory", wire: "l1", args: { dir_path: "." }, output: "a.txt\nb.txt" },
      { name: "read_file", wire: "r1", args: { file_path: "a.txt" }, output: "A" },
    ],
  }).gemini({ text: "There are two files." }).user("And b?", ids).gemini({ text: "Later." });
  b.raw({ $rewindTo: ids[1] }).user("Read b.txt").gemini({
    text: "",
    calls: [{ name: "read_file", wire: "r2", args: { file_path: "b.txt" }, output: "B" }],
  }).gemini({ text: "b.txt says B." });
  return b;
}
