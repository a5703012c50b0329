/**
 * Connections to the database (node-postgres): a pool for finding, listing and reading, and one
 * client of its own for each writer. Either way a connection that broke is thrown away, never
 * used again, and the failure becomes one line naming the database.
 *
 * @module
 */
import pgModule from "pg";
import { scrub } from "../_postgres_url.ts";
import { connectionProblem, SessionStoreUnreachableError } from "./_errors.ts";

/** A statement's result. */
export interface QueryResult<R> {
  rows: R[];
  rowCount: number | null;
}

/** A connection queries run on. */
export interface Db {
  query<R = Record<string, unknown>>(
    statement: string | NamedStatement,
    values?: unknown[],
  ): Promise<QueryResult<R>>;
}

/**
 * A statement the connection prepares once (by `name`) and then only executes: for the hot
 * ones (append, read), which skip parsing and planning after their first run.
 */
export interface NamedStatement {
  name: string;
  text: string;
  values?: unknown[];
}

/** A node-postgres client (the parts used here). */
export interface PgClient extends Db {
  connect(): Promise<void>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): void;
}

interface PgPoolClient extends Db {
  release(error?: Error): void;
}

interface PgPool {
  readonly ended: boolean;
  connect(): Promise<PgPoolClient>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): void;
}

/**
 * node-postgres, typed by hand: the package ships no types, and `@types/pg` would bring
 * `@types/node` into every type check of the project.
 */
const pg = pgModule as {
  Client: new (config: Record<string, unknown>) => PgClient;
  Pool: new (config: Record<string, unknown>) => PgPool;
};

/** A client for `url` with node-postgres's defaults; connect it, and end it when done. */
export function plainClient(url: string): PgClient {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  return client;
}

/** How to connect. */
export interface LinkOptions {
  /** The database URL (may hold a password; never shown). */
  url: string;
  /** The URL to show in messages. */
  name: string;
  /** The password, kept out of messages. */
  password: string | undefined;
  /** Milliseconds to wait for a connection. */
  connectTimeoutMs: number;
  /** `application_name` of the connections. */
  applicationName: string;
  /** Server settings for the session, as `-c name=value` options. */
  settings?: Record<string, string>;
}

function clientConfig(options: LinkOptions): Record<string, unknown> {
  const settings = Object.entries(options.settings ?? {}).map(([k, v]) => `-c ${k}=${v}`);
  return {
    connectionString: options.url,
    connectionTimeoutMillis: options.connectTimeoutMs,
    application_name: options.applicationName,
    keepAlive: true,
    ...(settings.length > 0 ? { options: settings.join(" ") } : {}),
  };
}

/** Something that lends a connection to `work`, and can be closed. */
export interface Link {
  /**
   * Runs `work` on a connection. A broken connection is thrown away and the failure becomes a
   * {@linkcode SessionStoreUnreachableError}; with `retry`, `work` first runs once more on a
   * fresh connection (for reads, which a connection the server dropped while idle should not
   * fail).
   */
  run<T>(work: (db: Db) => Promise<T>, options?: { retry?: boolean }): Promise<T>;
  /** Closes every connection. */
  end(): Promise<void>;
}

async function attempt<T>(
  options: LinkOptions,
  once: () => Promise<T>,
  retry: boolean | undefined,
): Promise<T> {
  for (let round = 0;; round++) {
    try {
      return await once();
    } catch (error) {
      const problem = connectionProblem(error);
      if (problem === undefined) throw error;
      if (retry && round === 0) continue;
      throw new SessionStoreUnreachableError(options.name, scrub(problem, options.password), {
        cause: error,
      });
    }
  }
}

/** The store's pool: connections are made on demand and kept while idle. */
export class PoolLink implements Link {
  readonly #options: LinkOptions;
  readonly #pool: PgPool;

  constructor(options: LinkOptions & { max: number }) {
    this.#options = options;
    this.#pool = new pg.Pool({ ...clientConfig(options), max: options.max, allowExitOnIdle: true });
    // An idle connection that breaks (a server restart) leaves the pool; nothing else to do.
    this.#pool.on("error", () => {});
  }

  run<T>(work: (db: Db) => Promise<T>, options: { retry?: boolean } = {}): Promise<T> {
    return attempt(this.#options, async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      try {
        return await work(client);
      } catch (error) {
        if (connectionProblem(error) !== undefined) broken = error as Error;
        throw error;
      } finally {
        client.release(broken);
      }
    }, options.retry);
  }

  async end(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}

/**
 * A writer's own connection. It never reconnects by itself: after a break the next `run` opens
 * a new connection, and the writer decides whether it may go on there.
 */
export class ClientLink implements Link {
  readonly #options: LinkOptions;
  #client: PgClient | undefined;
  #broken = false;

  constructor(options: LinkOptions) {
    this.#options = options;
  }

  async #connected(): Promise<PgClient> {
    if (this.#client !== undefined && !this.#broken) return this.#client;
    await this.#drop();
    const client = new pg.Client(clientConfig(this.#options));
    client.on("error", () => {
      this.#broken = true;
    });
    this.#client = client;
    this.#broken = false;
    await client.connect();
    return client;
  }

  async #drop(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }

  run<T>(work: (db: Db) => Promise<T>, options: { retry?: boolean } = {}): Promise<T> {
    return attempt(this.#options, async () => {
      try {
        return await work(await this.#connected());
      } catch (error) {
        if (connectionProblem(error) !== undefined) await this.#drop();
        throw error;
      }
    }, options.retry);
  }

  async end(): Promise<void> {
    await this.#drop();
  }
}

/** Runs `work` in a transaction on `db`: committed when it resolves, rolled back when it throws. */
export async function transaction<T>(db: Db, work: () => Promise<T>): Promise<T> {
  await db.query("BEGIN");
  let result: T;
  try {
    result = await work();
  } catch (error) {
    // On a broken connection the server rolls back by itself.
    await db.query("ROLLBACK").catch(() => {});
    throw error;
  }
  await db.query("COMMIT");
  return result;
}
