/**
 * A postgres.js client that is thrown away after a connection error and made anew on next use.
 * postgres.js 3.4.9 keeps a connection that failed with ECONNRESET waiting for the query it lost
 * (porsager/postgres#1130): every later query on it hangs. A fresh client never does.
 *
 * @module
 */
import postgres from "postgres";
import { connectionProblem, scrub, SessionStoreUnreachableError } from "./_errors.ts";

/** The postgres.js client type used throughout the store. */
export type Sql = postgres.Sql;

/** How to open a client. */
export interface ClientOptions {
  /** The database URL (may hold a password; never shown). */
  url: string;
  /** The URL to show in messages. */
  name: string;
  /** The password, kept out of messages. */
  password: string | undefined;
  /** Connections in the pool. */
  max: number;
  /** Seconds before an unused connection closes; 0: never. */
  idleTimeout: number;
  /** Seconds to wait for a connection. */
  connectTimeout: number;
  /** Session parameters sent at connection start. */
  parameters?: Record<string, string>;
}

/** A client that replaces itself after a connection error. */
export class Connection {
  readonly #options: ClientOptions;
  #sql: Sql | undefined;
  readonly #ending: Promise<void>[] = [];

  constructor(options: ClientOptions) {
    this.#options = options;
  }

  /** The current client, opened on first use. */
  get sql(): Sql {
    this.#sql ??= postgres(this.#options.url, {
      max: this.#options.max,
      idle_timeout: this.#options.idleTimeout,
      // A writer's lock lives as long as its connection; no age limit may end it.
      max_lifetime: 0,
      connect_timeout: this.#options.connectTimeout,
      onnotice: () => {},
      connection: { application_name: "turnlog", ...this.#options.parameters },
    });
    return this.#sql;
  }

  /**
   * Runs `work` on the client. A connection error throws the client away and becomes a
   * {@linkcode SessionStoreUnreachableError}; with `retry`, `work` first runs once more on a
   * fresh client (for reads, which a dropped idle connection should not fail).
   */
  async run<T>(work: (sql: Sql) => Promise<T>, options: { retry?: boolean } = {}): Promise<T> {
    for (let attempt = 0;; attempt++) {
      const sql = this.sql;
      try {
        return await work(sql);
      } catch (error) {
        const problem = connectionProblem(error);
        if (problem === undefined) throw error;
        this.discard(sql);
        if (options.retry && attempt === 0) continue;
        throw new SessionStoreUnreachableError(
          this.#options.name,
          scrub(problem, this.#options.password),
          { cause: error },
        );
      }
    }
  }

  /** Throws the client away (its connections close at once); the next use opens a new one. */
  discard(sql: Sql | undefined = this.#sql): void {
    if (sql === undefined) return;
    if (this.#sql === sql) this.#sql = undefined;
    this.#ending.push(sql.end({ timeout: 0 }).catch(() => {}));
  }

  /**
   * Closes the client (a statement still running gets a moment to finish) and waits for every
   * discarded one to finish closing.
   */
  async end(): Promise<void> {
    const sql = this.#sql;
    this.#sql = undefined;
    if (sql !== undefined) this.#ending.push(sql.end({ timeout: 2 }).catch(() => {}));
    await Promise.all(this.#ending.splice(0));
  }
}
