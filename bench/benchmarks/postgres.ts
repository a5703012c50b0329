/**
 * The PostgreSQL store beside the file store: full resume, resume from the last checkpoint and
 * one append, on the same generated sessions imported into a throwaway cluster that flushes
 * every commit to disk (as a production server does). Planned only when the PostgreSQL server
 * binaries are installed; sizes above 100 MB are left out (importing them takes minutes).
 *
 * @module
 */
import { join } from "node:path";
import { sizeLabel } from "../../testing/generate/mod.ts";
import type { CachedSession } from "../../testing/generate/mod.ts";
import { POSTGRES_SKIPPED, startTestPostgres, type TestPostgres } from "../../testing/postgres.ts";
import { createSession, importTurnlogFile } from "../../src/store/mod.ts";
import { PostgresStore } from "../../src/store/postgres/mod.ts";
import { formatRatio, type VariantFigures } from "../figures.ts";
import type { Variant } from "../group.ts";
import type { StoreTask } from "../store_tasks.ts";
import {
  type BenchContext,
  type BenchmarkDefinition,
  JUDGED_FROM,
  type PlannedBenchmark,
  roundsFor,
  target,
} from "./_definition.ts";

const MB = 1 << 20;

type Four = [VariantFigures, VariantFigures, VariantFigures, VariantFigures];
/** The largest size imported into the database. */
const LARGEST = 100 * MB;

/** Imports a generated session into a database of its own; returns that database's URL. */
async function imported(pg: TestPostgres, session: CachedSession): Promise<string> {
  const url = await pg.createDatabase();
  await using store = new PostgresStore(url);
  await importTurnlogFile(store, session.path);
  return url;
}

/** A resume variant of `store` (a folder or a URL), warmed up on the small session there. */
function resumeVariant(
  name: string,
  session: { store: string; id: string; bytes: number },
  warm: { store: string; id: string },
  full = false,
): Variant {
  const task: StoreTask = { kind: "store_resume", store: session.store, id: session.id, full };
  const big = session.bytes > 16 * MB;
  return {
    name,
    task,
    bytes: session.bytes,
    warmup: 2,
    iterations: big ? 1 : 3,
    ...(big ? { warmupTask: { ...task, store: warm.store, id: warm.id } } : {}),
  };
}

/** Where each generated session is, in the files and in the database. */
interface Placed {
  session: CachedSession;
  /** The database's URL. */
  url: string;
}

function fullResume(size: number, placed: Placed, warm: Placed, rounds: number): PlannedBenchmark {
  const { session, url } = placed;
  const label = sizeLabel(size);
  const files = { store: session.root, id: session.id, bytes: session.bytes };
  return {
    name: `postgres full resume ${label}`,
    fileBytes: session.bytes,
    progress: `PostgreSQL beside the files: full resume, ${label}...`,
    rounds: roundsFor(session.bytes, rounds),
    variants: [
      resumeVariant("files resumeSession", files, {
        store: warm.session.root,
        id: warm.session.id,
      }),
      resumeVariant("postgres resumeSession", { ...files, store: url }, {
        store: warm.url,
        id: warm.session.id,
      }),
    ],
    judge(figures) {
      const [onFiles, onPostgres] = figures as [VariantFigures, VariantFigures];
      const ratio = onPostgres.medianMs / onFiles.medianMs;
      return {
        target: target("<= 3x the file store", {
          shown: `${formatRatio(ratio)} the files`,
          ratio,
          limit: 3,
          pass: ratio <= 3 && onFiles.check === onPostgres.check,
          judged: session.bytes >= JUDGED_FROM.resume,
        }),
        notes: [`${session.records} records, every one read from the database in batches of 1000`],
      };
    },
  };
}

function checkpointResume(
  size: number,
  placed: Placed,
  warm: Placed,
  rounds: number,
): PlannedBenchmark {
  const { session, url } = placed;
  const label = sizeLabel(size);
  const files = { store: session.root, id: session.id, bytes: session.bytes };
  const onDb = { ...files, store: url };
  const warmDb = { store: warm.url, id: warm.session.id };
  return {
    name: `postgres checkpoint resume ${label}`,
    fileBytes: session.bytes,
    progress: `PostgreSQL beside the files: resume from the last checkpoint, ${label}...`,
    rounds: roundsFor(session.bytes, rounds),
    variants: [
      resumeVariant("files resumeSession (checkpoint)", files, {
        store: warm.session.root,
        id: warm.session.id,
      }),
      resumeVariant("postgres resumeSession (checkpoint)", onDb, warmDb),
      resumeVariant("postgres full replay", onDb, warmDb, true),
    ],
    judge(figures) {
      const [onFiles, fromCheckpoint, full] = figures as [
        VariantFigures,
        VariantFigures,
        VariantFigures,
      ];
      const ratio = fromCheckpoint.medianMs / full.medianMs;
      return {
        target: target("<= 5% of postgres full replay", {
          shown: `${(100 * ratio).toFixed(1)}%`,
          ratio,
          limit: 0.05,
          pass: ratio <= 0.05 && fromCheckpoint.check === full.check &&
            onFiles.check === full.check,
          // Restated in issue 25 (as the file store's is): below 100 MB the resume from a
          // checkpoint is its queries' fixed cost (about 3 ms of round trips to the server at
          // 1 and 10 MB alike), which a ratio to a full replay of a small file cannot shrink.
          judged: session.bytes >= JUDGED_FROM.checkpoint,
        }),
        notes: [
          `the database reads the checkpoint by the position its sessions row keeps, then the rows after it; ${
            formatRatio(fromCheckpoint.medianMs / onFiles.medianMs)
          } the file store's time`,
          `from the checkpoint ${fromCheckpoint.medianMs.toFixed(2)} ms, a full replay ${
            full.medianMs.toFixed(1)
          } ms: below 100 MB the fixed cost of the queries rules (the target is judged from 100 MB)`,
        ],
      };
    },
  };
}

const EMPTY = {
  cwd: "/bench",
  modelProvider: "openai",
  model: "gpt-5",
  wireApi: "responses",
  policy: { approval: "ask-changes" },
} as const;

/** A new, empty session in a database of its own; its URL and id. */
async function emptySession(pg: TestPostgres): Promise<{ url: string; id: string }> {
  const url = await pg.createDatabase();
  await using store = new PostgresStore(url);
  const created = await createSession(store, EMPTY);
  await created.writer.close();
  return { url, id: created.meta.id };
}

/**
 * One append to a copy of the largest session and to an empty one, in turn, each taking the
 * lock; then appends on a held lock, to an empty session in the database and in a folder.
 */
async function appendOne(
  pg: TestPostgres,
  context: { size: number; session: CachedSession; rounds: number; outDir: string },
): Promise<PlannedBenchmark> {
  const { size, session, rounds } = context;
  const label = sizeLabel(size);
  // Copies: the appends must not change the sessions the resume benchmarks read.
  const big = await imported(pg, session);
  const empty = await emptySession(pg);
  const heldDb = await emptySession(pg);
  const folder = join(context.outDir, "postgres-append");
  await Deno.remove(folder, { recursive: true }).catch(() => {});
  const heldFile = await createSession(folder, EMPTY);
  await heldFile.writer.close();
  return {
    name: `postgres append (${label} vs empty)`,
    fileBytes: session.bytes,
    progress: `PostgreSQL: append one record, ${label} session vs an empty one...`,
    rounds,
    variants: [{
      name: "append",
      task: {
        kind: "store_append",
        targets: [{ store: big, id: session.id }, { store: empty.url, id: empty.id }],
      },
      warmup: 4,
      iterations: 30,
      sides: [`postgres append to ${label}`, "postgres append to an empty session"],
    }, {
      name: "append on a held lock",
      task: {
        kind: "store_append",
        hold: true,
        targets: [
          { store: heldDb.url, id: heldDb.id },
          { store: folder, id: heldFile.meta.id },
        ],
      },
      warmup: 4,
      iterations: 30,
      sides: ["postgres append, lock held", "files append, lock held"],
    }],
    judge(figures) {
      const [toBig, toEmpty, held, heldFiles] = figures as Four;
      const ratio = toBig.medianMs / toEmpty.medianMs;
      return {
        target: target("same cost (ratio <= 1.25)", {
          shown: formatRatio(ratio),
          ratio,
          limit: 1.25,
          pass: ratio <= 1.25,
          judged: session.bytes >= JUDGED_FROM.resume,
        }),
        notes: [
          "each sample of the first two takes the session's lock on a new connection, appends one record (committed, flushed to disk) and releases the lock",
          `on a held lock (a turn's appends after its first) an append costs ${
            held.medianMs.toFixed(2)
          } ms in the database (a commit flushed to disk) and ${
            heldFiles.medianMs.toFixed(2)
          } ms in a file (a write to the operating system, not flushed)`,
        ],
      };
    },
    cleanup: async () => {
      await Deno.remove(folder, { recursive: true }).catch(() => {});
      await pg.stop();
    },
  };
}

/** Imports every session the run measures; undefined when PostgreSQL is not installed. */
async function prepare(context: BenchContext) {
  const log = (text: string) => context.options.print && console.error(text);
  const sizes = context.options.sizes.filter((size) => size <= LARGEST);
  if (sizes.length === 0) return undefined;
  const pg = await startTestPostgres({ durable: true });
  if (pg === undefined) {
    log(`PostgreSQL benchmarks ${POSTGRES_SKIPPED}`);
    return undefined;
  }
  log("Importing the sessions into a throwaway PostgreSQL cluster (fsync on)...");
  const place = async (session: CachedSession) => ({ session, url: await imported(pg, session) });
  const warm = {
    plain: await place(context.warm.plain),
    checkpoints: await place(context.warm.checkpoints),
  };
  const placed = [];
  for (const size of sizes) {
    placed.push({
      size,
      plain: await place(context.sessions.plain.get(size)!),
      checkpoints: await place(context.sessions.checkpoints.get(size)!),
    });
  }
  return { pg, sizes, warm, placed };
}

/** PostgreSQL beside the file store: full resume and checkpoint resume per size, one append. */
export const postgresStore: BenchmarkDefinition = {
  word: "postgres",
  plan: async (context) => {
    const prepared = await prepare(context);
    if (prepared === undefined) return [];
    const { pg, warm, placed } = prepared;
    const rounds = context.options.rounds;
    const planned = placed.flatMap(({ size, plain, checkpoints }) => [
      fullResume(size, plain, warm.plain, rounds),
      checkpointResume(size, checkpoints, warm.checkpoints, rounds),
    ]);
    const largest = placed.reduce((a, b) => (b.size > a.size ? b : a));
    const { outDir } = context.options;
    planned.push(
      await appendOne(pg, { size: largest.size, session: largest.plain.session, rounds, outDir }),
    );
    return planned;
  },
};
