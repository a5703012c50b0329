/**
 * The store contract (tests/_store_contract.ts) run against every backend this machine can run.
 * The file store joins here once it implements `SessionStore`:
 * `storeContract({ label: "files", ignore: false, open: ... })` with a temp root, a second store
 * on the same root, and a child process that holds a session file's lock.
 *
 * @module
 */
import { storeContract } from "./_store_contract.ts";
import { fileCluster } from "./_postgres_helpers.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";
import { spawnLockHolder } from "../testing/postgres_lock_holder.ts";

const cluster = await fileCluster("store_contract_test.ts");

storeContract({
  label: "postgres",
  ignore: cluster === undefined,
  open: async () => {
    const url = await cluster!.createDatabase();
    const store = new PostgresStore(url);
    const others: PostgresStore[] = [];
    return {
      store,
      second: () => {
        const other = new PostgresStore(url);
        others.push(other);
        return other;
      },
      holdLockInChild: (location) => spawnLockHolder(url, location.id),
      async [Symbol.asyncDispose]() {
        await Promise.all([store, ...others].map((s) => s.close()));
      },
    };
  },
});
