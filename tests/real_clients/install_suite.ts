import { assertEquals } from "../_assert.ts";
import {
  installedRealClient,
  installRealClient,
  REAL_CLIENTS,
} from "../../testing/real_clients/install.ts";

for (const spec of REAL_CLIENTS) {
  const found = installedRealClient(spec);
  Deno.test({
    name: `installRealClient() gives the pinned ${spec.package}@${spec.version}`,
    ignore: typeof found === "string",
    async fn() {
      const client = await installRealClient(spec);
      if (typeof client === "string") throw new Error(client);
      assertEquals(client.spec.version, spec.version);
    },
  });
}
