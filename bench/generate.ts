/**
 * Deterministic synthetic sessions for the benchmark: seeded, realistic mixes of messages,
 * tool calls and outputs (some large), with or without compaction checkpoints, written with
 * the real record format, and a store of many small sessions spread over many days.
 *
 * Files are generated once into the output folder and reused while their manifest matches.
 *
 * @module
 */
import { join } from "node:path";
import { compactHistory, makeCheckpoint } from "../src/compaction/mod.ts";
import {
  encodeRecords,
  FORMAT_VERSION,
  makeRecord,
  type ResponseItem,
  responseItemRecord,
  type SessionRecord,
} from "../src/record/mod.ts";
import { sessionFilePath } from "../src/store/mod.ts";
import { synthesizedOutputFor } from "../src/history/mod.ts";

/** Bumped whenever the generator's output changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 4;

/** A small, fast, seeded PRNG (mulberry32): the same seed gives the same files everywhere. */
export class Rng {
  #state: number;
  constructor(seed: number) {
    this.#state = seed >>> 0;
  }
  /** A float in [0, 1). */
  next(): number {
    let t = (this.#state = (this.#state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  hex(digits: number): string {
    let out = "";
    for (let i = 0; i < digits; i++) out += "0123456789abcdef"[this.int(0, 15)];
    return out;
  }
}

/** A UUIDv7 for `time` whose random bits come from `rng`. */
export function seededUuidV7(rng: Rng, time: number): string {
  const t = time.toString(16).padStart(12, "0");
  const variant = "89ab"[rng.int(0, 3)];
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${rng.hex(3)}-${variant}${rng.hex(3)}-${rng.hex(12)}`;
}

const WORDS = (
  "the a to of and in is it that for on with as was this by be are from at or an have not " +
  "session resume replay record history tool call output model turn file line error value " +
  "function return const let import export async await type interface string number true " +
  "false null undefined test check build run deno json parse stream chunk buffer offset " +
  "compaction checkpoint summary user assistant system message request response token usage " +
  "path directory config option flag result status code index length count limit range"
).split(" ");

/** Non-ASCII text that some prose items carry (about one in seven), as real sessions do. */
const UNICODE = ["café → naïve", "✓ done", "日本語のテスト", "über — résumé", "测试通过 ✔"];

const CODE_LINES = [
  "export function handle(request: Request): Response {",
  '  const url = new URL(request.url, "http://localhost");',
  '  if (!url.pathname.startsWith("/api/")) return notFound();',
  "  for (const [key, value] of Object.entries(options)) {",
  "    console.log(`${key}=${JSON.stringify(value)}`);",
  "  }",
  "  return new Response(JSON.stringify({ ok: true }), { status: 200 });",
  "}",
  "\tat Object.<anonymous> (/work/project/src/main.ts:42:13)",
  "error: Uncaught (in promise) TypeError: Cannot read properties of undefined",
  "test result: ok. 42 passed; 0 failed; 0 ignored; finished in 1.23s",
  "drwxr-xr-x  5 dev dev  4096 Nov 30 02:48 src",
  '{"name": "turnlog", "version": "0.1.0", "exports": "./src/mod.ts"}',
];

/** Text pools sliced at random offsets: generating a gigabyte stays fast. */
class TextPool {
  readonly prose: string;
  readonly code: string;
  constructor(rng: Rng) {
    const prose: string[] = [];
    let length = 0;
    while (length < 1 << 20) {
      const sentence: string[] = [];
      const n = rng.int(5, 18);
      for (let i = 0; i < n; i++) sentence.push(rng.pick(WORDS));
      const text = sentence.join(" ") + (rng.chance(0.15) ? ".\n\n" : ". ");
      prose.push(text);
      length += text.length;
    }
    this.prose = prose.join("");
    const code: string[] = [];
    length = 0;
    while (length < 1 << 20) {
      const text = rng.pick(CODE_LINES) + "\n";
      code.push(text);
      length += text.length;
    }
    this.code = code.join("");
  }
  /**
   * `length` characters of prose (or code) starting at a random offset; about one prose
   * item in seven carries some non-ASCII text.
   */
  take(rng: Rng, length: number, kind: "prose" | "code" = "prose"): string {
    const pool = kind === "prose" ? this.prose : this.code;
    let out = "";
    while (out.length < length) {
      const want = Math.min(length - out.length, pool.length);
      const at = rng.int(0, pool.length - want);
      out += pool.slice(at, at + want);
    }
    if (kind === "prose" && rng.chance(0.15)) {
      const at = rng.int(0, out.length);
      out = `${out.slice(0, at)} ${rng.pick(UNICODE)} ${out.slice(at)}`;
    }
    return out;
  }
}

/** What a generated session file should look like. */
export interface SessionSpec {
  /** Target size in bytes; the file ends at the first turn boundary past it. */
  size: number;
  seed: number;
  /** Write compaction checkpoints, the last one in the last 1% of the file. */
  checkpoints: boolean;
}

/** What was generated, stored next to the file as its manifest. */
export interface GeneratedSession {
  generator: number;
  spec: SessionSpec;
  id: string;
  path: string;
  /** The sessions root the file lives under, so it can be found by id. */
  root: string;
  createdAt: string;
  bytes: number;
  records: number;
  checkpointCount: number;
  /** Byte offset of the last checkpoint record, or -1. */
  lastCheckpointOffset: number;
  /** `function_call`s left without an output in the file (normalization synthesizes them). */
  orphanCalls: number;
  largeOutputs: number;
}

const TOOLS = ["read_file", "run_shell", "search", "write_file", "list_dir", "apply_patch"];
const BASE_TIME = Date.UTC(2026, 0, 15, 9, 30, 0);

/** Writes JSONL through a buffer, counting bytes. */
class Sink {
  bytes = 0;
  records = 0;
  #parts: Uint8Array[] = [];
  #pending = 0;
  constructor(readonly file: Deno.FsFile) {}
  async write(record: SessionRecord): Promise<number> {
    const at = this.bytes;
    const encoded = encodeRecords([record]);
    this.#parts.push(encoded);
    this.#pending += encoded.length;
    this.bytes += encoded.length;
    this.records++;
    if (this.#pending >= 4 << 20) await this.flush();
    return at;
  }
  async flush(): Promise<void> {
    for (const part of this.#parts) {
      let written = 0;
      while (written < part.length) written += await this.file.write(part.subarray(written));
    }
    this.#parts = [];
    this.#pending = 0;
  }
}

/** Generates one session file at `path` (overwriting it). */
export async function generateSession(
  root: string,
  spec: SessionSpec,
): Promise<GeneratedSession> {
  const rng = new Rng(spec.seed ^ (spec.size >>> 0) ^ (spec.checkpoints ? 0x5eed : 0));
  const pool = new TextPool(new Rng(spec.seed));
  let clock = BASE_TIME + rng.int(0, 86_400_000);
  const id = seededUuidV7(rng, clock);
  const createdAt = new Date(clock);
  const path = sessionFilePath(root, id, createdAt);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const tick = () => new Date(clock += rng.int(20, 4000));

  const result: GeneratedSession = {
    generator: GENERATOR_VERSION,
    spec,
    id,
    path,
    root,
    createdAt: createdAt.toISOString(),
    bytes: 0,
    records: 0,
    checkpointCount: 0,
    lastCheckpointOffset: -1,
    orphanCalls: 0,
    largeOutputs: 0,
  };
  const policy = { approval: "ask-changes" } as const;
  const maxOutput = Math.max(2000, Math.min(250_000, Math.floor(spec.size / 20)));
  // Checkpoints every eighth of the file, and a last one once 99.2% is written.
  const checkpointEvery = Math.max(4096, Math.floor(spec.size / 8));
  const lastCheckpointAt = Math.floor(spec.size * 0.992);
  let nextCheckpoint = checkpointEvery;
  let tail = false; // after the last checkpoint: small records only

  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  const sink = new Sink(file);
  const history: ResponseItem[] = [];
  const item = async (payload: ResponseItem) => {
    history.push(payload);
    await sink.write(responseItemRecord(payload, tick()));
  };

  await sink.write(makeRecord("session_meta", {
    version: FORMAT_VERSION,
    id,
    createdAt: createdAt.toISOString(),
    cwd: "/home/dev/projects/turnlog",
    modelProvider: "openai",
    model: "gpt-5",
    wireApi: "responses",
    policy,
  }, createdAt));

  const system: ResponseItem = {
    type: "message",
    role: "system",
    content: "You are a coding agent working in a repository. " + pool.take(rng, 2500),
  };
  let pendingOrphans: ResponseItem[] = [];
  let turn = 0;
  let done = false;

  // A checkpoint exactly as the runtime writes one: the real transform, the real payload.
  const checkpoint = async () => {
    const compacted = compactHistory(history, pool.take(rng, rng.int(1500, 4000)));
    const offset = await sink.write(responseItemRecord(
      makeCheckpoint(compacted, {
        reason: "token_threshold",
        tokensBefore: Math.floor(sink.bytes / 4),
        recordsBefore: sink.records,
      }),
      tick(),
    ));
    history.length = 0;
    history.push(...compacted.replacementHistory);
    result.checkpointCount++;
    result.lastCheckpointOffset = offset;
  };

  while (!done) {
    const runId = seededUuidV7(rng, clock);
    await sink.write(makeRecord("turn_context", {
      runId,
      model: "gpt-5",
      wireApi: "responses",
      policy,
      resumed: turn > 0,
    }, tick()));
    // A resume after a crash appends synthesized outputs half of the time; the other orphans
    // stay in the file, as an older writer would have left them.
    if (pendingOrphans.length > 0 && rng.chance(0.5)) {
      for (const orphan of pendingOrphans) {
        if (orphan.type === "function_call") await item(synthesizedOutputFor(orphan));
      }
    } else {
      result.orphanCalls += pendingOrphans.length;
    }
    pendingOrphans = [];
    if (turn === 0) await item(system);
    await item({
      type: "message",
      role: "user",
      content: pool.take(rng, rng.chance(0.8) ? rng.int(30, 400) : rng.int(400, 3000)),
    });
    const rounds = rng.int(1, 10);
    let crashed = false;
    for (let round = 0; round < rounds; round++) {
      if (spec.checkpoints && !tail) {
        if (sink.bytes >= lastCheckpointAt) {
          await checkpoint();
          tail = true;
        } else if (sink.bytes >= nextCheckpoint) {
          await checkpoint();
          nextCheckpoint += checkpointEvery;
        }
      }
      if (rng.chance(0.6)) {
        await item({
          type: "message",
          role: "assistant",
          content: pool.take(rng, tail ? rng.int(40, 200) : rng.int(60, 1500)),
        });
      }
      const calls: ResponseItem[] = [];
      const callCount = rng.int(1, 3);
      for (let c = 0; c < callCount; c++) {
        const name = rng.pick(TOOLS);
        const args = JSON.stringify({
          path: `src/${rng.pick(WORDS)}/${rng.pick(WORDS)}.ts`,
          ...(name === "run_shell" ? { command: pool.take(rng, rng.int(10, 120), "code") } : {}),
          ...(name === "write_file" ? { content: pool.take(rng, rng.int(100, 3000), "code") } : {}),
        });
        const call: ResponseItem = {
          type: "function_call",
          callId: `call_${rng.hex(24)}`,
          name,
          arguments: args,
        };
        calls.push(call);
        await item(call);
      }
      // A crash: the calls never get their outputs and the run never finishes.
      const last = sink.bytes >= spec.size;
      if ((rng.chance(0.02) && !tail) || (last && rng.chance(0.5))) {
        pendingOrphans = calls;
        crashed = true;
        if (last) result.orphanCalls += calls.length;
        break;
      }
      for (const call of calls) {
        if (call.type !== "function_call") continue;
        const roll = rng.next();
        const length = tail
          ? rng.int(50, 600)
          : roll < 0.7
          ? rng.int(100, 1200)
          : roll < 0.94
          ? rng.int(1200, 8000)
          : roll < 0.99
          ? rng.int(8000, 40_000)
          : rng.int(40_000, maxOutput);
        if (length >= 40_000) result.largeOutputs++;
        await item({
          type: "function_call_output",
          callId: call.callId,
          toolName: call.name,
          output: pool.take(rng, length, call.name === "read_file" ? "code" : "prose"),
          isError: rng.chance(0.05),
        });
      }
      if (last) break;
    }
    if (!crashed) {
      await item({ type: "message", role: "assistant", content: pool.take(rng, rng.int(40, 600)) });
      await sink.write(makeRecord("run_finished", {
        runId,
        outcome: "succeeded",
        rounds,
        usage: {
          inputTokens: rng.int(1000, 90_000),
          outputTokens: rng.int(50, 4000),
          totalTokens: 0,
        },
      }, tick()));
    }
    turn++;
    done = sink.bytes >= spec.size && (!spec.checkpoints || tail);
  }
  await sink.flush();
  result.bytes = sink.bytes;
  result.records = sink.records;
  return result;
}

/** A human label for a byte size: 1MB, 100MB, 1GB, 64KB. */
export function sizeLabel(bytes: number): string {
  if (bytes >= 1 << 30 && bytes % (1 << 30) === 0) return `${bytes / (1 << 30)}GB`;
  if (bytes >= 1 << 20 && bytes % (1 << 20) === 0) return `${bytes / (1 << 20)}MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024}KB`;
  return `${bytes}B`;
}

/** Parses `1MB`, `100MB`, `1GB`, `64KB` or a plain byte count. */
export function parseSize(text: string): number {
  const match = /^(\d+)(B|KB|MB|GB)?$/i.exec(text.trim());
  if (!match) throw new Error(`Invalid size "${text}": expected e.g. 64KB, 10MB or 1GB`);
  const unit = (match[2] ?? "B").toUpperCase();
  const scale = unit === "GB" ? 1 << 30 : unit === "MB" ? 1 << 20 : unit === "KB" ? 1024 : 1;
  return Number(match[1]) * scale;
}

async function readManifest<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as T;
  } catch {
    return undefined;
  }
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await Deno.stat(path)).size;
  } catch {
    return -1;
  }
}

/**
 * The session for `spec` under `outDir`, generated unless a file from the same generator,
 * seed and size is already there (checked by its manifest and its size).
 */
export async function ensureSession(outDir: string, spec: SessionSpec): Promise<GeneratedSession> {
  const name = `session-${spec.checkpoints ? "checkpoints" : "plain"}-${
    sizeLabel(spec.size)
  }-s${spec.seed}`;
  const manifestPath = join(outDir, `${name}.json`);
  const known = await readManifest<GeneratedSession>(manifestPath);
  if (
    known && known.generator === GENERATOR_VERSION &&
    JSON.stringify(known.spec) === JSON.stringify(spec) &&
    await fileSize(known.path) === known.bytes
  ) {
    return known;
  }
  await Deno.mkdir(outDir, { recursive: true });
  const generated = await generateSession(join(outDir, name), spec);
  await Deno.writeTextFile(manifestPath, JSON.stringify(generated, null, 2));
  return generated;
}

/** What a generated store holds. */
export interface GeneratedStore {
  generator: number;
  seed: number;
  count: number;
  days: number;
  root: string;
  bytes: number;
  /** Ids to look up, spread over the store (oldest, newest and between). */
  lookupIds: string[];
  /** The newest 25 ids, newest first: what a listing must return. */
  newestIds: string[];
  /** The size of those 25 files together. */
  newestBytes: number;
}

/**
 * A store of `count` small sessions whose UUIDv7 ids spread over `days` days, named the way
 * `createSession` names them, generated once under `outDir`.
 */
export async function ensureStore(
  outDir: string,
  options: { count: number; seed: number; days?: number },
): Promise<GeneratedStore> {
  const days = options.days ?? 400;
  const root = join(outDir, `store-${options.count}-s${options.seed}`);
  const manifestPath = join(root, "manifest.json");
  const known = await readManifest<GeneratedStore>(manifestPath);
  if (
    known && known.generator === GENERATOR_VERSION && known.count === options.count &&
    known.seed === options.seed && known.days === days
  ) {
    return known;
  }
  await Deno.remove(root, { recursive: true }).catch(() => {});
  const rng = new Rng(options.seed ^ 0x570e);
  const pool = new TextPool(new Rng(options.seed));
  const start = Date.UTC(2025, 0, 1);
  const times: number[] = [];
  for (let i = 0; i < options.count; i++) times.push(start + rng.int(0, days * 86_400_000));
  times.sort((a, b) => a - b);
  const ids: string[] = [];
  const sizes: number[] = [];
  const made = new Set<string>();
  let bytes = 0;
  for (const time of times) {
    const id = seededUuidV7(rng, time);
    const createdAt = new Date(time);
    const path = sessionFilePath(root, id, createdAt);
    const dir = join(path, "..");
    if (!made.has(dir)) {
      await Deno.mkdir(dir, { recursive: true });
      made.add(dir);
    }
    const policy = { approval: "ask-changes" } as const;
    const runId = id;
    let clock = time;
    const at = () => new Date(clock += rng.int(50, 3000));
    const records: SessionRecord[] = [
      makeRecord("session_meta", {
        version: FORMAT_VERSION,
        id,
        createdAt: createdAt.toISOString(),
        cwd: `/home/dev/projects/${rng.pick(WORDS)}`,
        modelProvider: "openai",
        model: "gpt-5",
        wireApi: "responses",
        policy,
      }, createdAt),
      makeRecord("turn_context", {
        runId,
        model: "gpt-5",
        wireApi: "responses",
        policy,
        resumed: false,
      }, at()),
      responseItemRecord(
        { type: "message", role: "system", content: pool.take(rng, rng.int(200, 800)) },
        at(),
      ),
      responseItemRecord(
        { type: "message", role: "user", content: pool.take(rng, rng.int(20, 300)) },
        at(),
      ),
    ];
    const callId = `call_${rng.hex(24)}`;
    records.push(
      responseItemRecord(
        { type: "function_call", callId, name: "read_file", arguments: '{"path":"README.md"}' },
        at(),
      ),
      responseItemRecord({
        type: "function_call_output",
        callId,
        toolName: "read_file",
        output: pool.take(rng, rng.int(100, 1500), "code"),
        isError: false,
      }, at()),
      responseItemRecord(
        { type: "message", role: "assistant", content: pool.take(rng, rng.int(40, 500)) },
        at(),
      ),
      makeRecord("run_finished", { runId, outcome: "succeeded", rounds: 2 }, at()),
    );
    // About one session in a hundred (and the newest) is long: a listing must still read
    // only its head.
    if (rng.chance(0.01) || ids.length === times.length - 1) {
      const target = rng.int(300_000, 1_000_000);
      let size = 0;
      while (size < target) {
        const id = `call_${rng.hex(24)}`;
        const output = pool.take(rng, rng.int(2000, 20_000), "code");
        size += output.length;
        records.push(
          responseItemRecord(
            { type: "function_call", callId: id, name: "run_shell", arguments: "{}" },
            at(),
          ),
          responseItemRecord(
            {
              type: "function_call_output",
              callId: id,
              toolName: "run_shell",
              output,
              isError: false,
            },
            at(),
          ),
        );
      }
    }
    const encoded = encodeRecords(records);
    bytes += encoded.length;
    await Deno.writeFile(path, encoded);
    ids.push(id);
    sizes.push(encoded.length);
  }
  const lookupRng = new Rng(options.seed ^ 0x100c);
  const lookupIds = [ids[0]!, ids[ids.length - 1]!];
  while (lookupIds.length < Math.min(10, ids.length)) {
    const id = ids[lookupRng.int(0, ids.length - 1)]!;
    if (!lookupIds.includes(id)) lookupIds.push(id);
  }
  const store: GeneratedStore = {
    generator: GENERATOR_VERSION,
    seed: options.seed,
    count: options.count,
    days,
    root,
    bytes,
    lookupIds,
    newestIds: ids.slice(-25).reverse(),
    newestBytes: sizes.slice(-25).reduce((sum, size) => sum + size, 0),
  };
  await Deno.writeTextFile(manifestPath, JSON.stringify(store, null, 2));
  return store;
}

if (import.meta.main) {
  const [sizeText = "1MB", mode = "plain"] = Deno.args;
  const generated = await generateSession(
    "bench/out/manual",
    { size: parseSize(sizeText), seed: 7, checkpoints: mode === "checkpoints" },
  );
  console.log(JSON.stringify(generated, null, 2));
}
