/**
 * The benchmark's data: sessions of a target size and a store of many small sessions over
 * many days, generated once into an output folder and reused while their manifests match.
 *
 * @module
 */
import { join } from "node:path";
import { Rng } from "./_rng.ts";
import { type GeneratedSessionFile, writeSession } from "./_write.ts";

/** Bumped whenever the generator's output changes, so cached files are regenerated. */
export const GENERATOR_VERSION = 5;

/** A session of a target size, as the benchmark asks for one. */
export interface SizedSessionSpec {
  /** Target size in bytes; the file ends at the first round boundary past it. */
  size: number;
  /** Decides every byte. */
  seed: number;
  /** Checkpoints every eighth of the file, the last one in its last 1%. */
  checkpoints: boolean;
}

/** A cached session: its file, what went in, and how it was asked for (its manifest). */
export interface CachedSession extends GeneratedSessionFile {
  /** {@linkcode GENERATOR_VERSION} when it was written. */
  generator: number;
  /** What was asked for. */
  spec: SizedSessionSpec;
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
export async function ensureSession(
  outDir: string,
  spec: SizedSessionSpec,
): Promise<CachedSession> {
  const kind = spec.checkpoints ? "checkpoints" : "plain";
  const name = `session-${kind}-${sizeLabel(spec.size)}-s${spec.seed}`;
  const manifestPath = join(outDir, `${name}.json`);
  const known = await readManifest<CachedSession>(manifestPath);
  if (
    known && known.generator === GENERATOR_VERSION &&
    JSON.stringify(known.spec) === JSON.stringify(spec) &&
    await fileSize(known.path) === known.bytes
  ) {
    return known;
  }
  await Deno.mkdir(outDir, { recursive: true });
  const written = await writeSession(join(outDir, name), {
    seed: spec.seed,
    size: spec.size,
    ...(spec.checkpoints ? { checkpoints: "spread" } : {}),
  });
  const generated: CachedSession = { generator: GENERATOR_VERSION, spec, ...written };
  await Deno.writeTextFile(manifestPath, JSON.stringify(generated, null, 2));
  return generated;
}

/** What a generated store holds. */
export interface GeneratedStore {
  /** {@linkcode GENERATOR_VERSION} when it was written. */
  generator: number;
  /** Decides every byte. */
  seed: number;
  /** Sessions in the store. */
  count: number;
  /** Days their creation times spread over. */
  days: number;
  /** The sessions root. */
  root: string;
  /** Bytes of all the sessions together. */
  bytes: number;
  /** Ids to look up, spread over the store (oldest, newest and between). */
  lookupIds: string[];
  /** The newest 25 ids, newest first: what a listing must return. */
  newestIds: string[];
  /** The size of those 25 files together. */
  newestBytes: number;
}

/**
 * A store of `count` small sessions whose UUIDv7 ids spread over `days` days (default 400),
 * named the way `createSession` names them, generated once under `outDir`. About one session
 * in a hundred, and the newest, is long (300 KB to 1 MB).
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
  const start = Date.UTC(2025, 0, 1);
  const times: number[] = [];
  for (let i = 0; i < options.count; i++) times.push(start + rng.int(0, days * 86_400_000));
  times.sort((a, b) => a - b);
  const sessions: GeneratedSessionFile[] = [];
  for (const [index, createdAt] of times.entries()) {
    const long = rng.chance(0.01) || index === times.length - 1;
    const size = long ? rng.int(300_000, 1_000_000) : rng.int(1500, 4000);
    sessions.push(await writeSession(root, { seed: rng.int(0, 0xffffffff), size, createdAt }));
  }
  const ids = sessions.map((s) => s.id);
  const lookupRng = new Rng(options.seed ^ 0x100c);
  const lookupIds = [ids[0]!, ids[ids.length - 1]!];
  while (lookupIds.length < Math.min(10, ids.length)) {
    const id = ids[lookupRng.int(0, ids.length - 1)]!;
    if (!lookupIds.includes(id)) lookupIds.push(id);
  }
  const newest = sessions.slice(-25).reverse();
  const store: GeneratedStore = {
    generator: GENERATOR_VERSION,
    seed: options.seed,
    count: options.count,
    days,
    root,
    bytes: sessions.reduce((sum, s) => sum + s.bytes, 0),
    lookupIds,
    newestIds: newest.map((s) => s.id),
    newestBytes: newest.reduce((sum, s) => sum + s.bytes, 0),
  };
  await Deno.writeTextFile(manifestPath, JSON.stringify(store, null, 2));
  return store;
}
