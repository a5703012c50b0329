/**
 * The store contract (tests/_store_contract.ts) run against both backends: the file store in a
 * temp folder, and the PostgreSQL store in a throwaway cluster when the server binaries are
 * installed (otherwise its tests are skipped, and the file says so).
 *
 * @module
 */
import { storeContract } from "./_store_contract.ts";
import { fileCluster } from "./_postgres_helpers.ts";
import { FileStore } from "../src/store/mod.ts";
import { PostgresStore } from "../src/store/postgres/mod.ts";
import { spawnLockHolder } from "../testing/lock_holder.ts";

storeContract({
  label: "files",
  ignore: false,
  checkpointLines: false,
  open: async () => {
    const root = await Deno.makeTempDir({ prefix: "turnlog-store-" });
    return {
      store: new FileStore(root),
      second: () => new FileStore(root),
      holdLockInChild: (location) => spawnLockHolder(root, location.id),
      async [Symbol.asyncDispose]() {
        await Deno.remove(root, { recursive: true });
      },
    };
  },
});

const cluster = await fileCluster("store_contract_test.ts");

storeContract({
  label: "postgres",
  ignore: cluster === undefined,
  checkpointLines: true,
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
