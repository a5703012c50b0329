import { assertEquals } from "../_assert.ts";
import {
  CLAUDE_CODE,
  CODEX,
  installedRealClient,
  installRealClient,
} from "../../testing/real_clients/install.ts";

for (const spec of [CODEX, CLAUDE_CODE]) {
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
