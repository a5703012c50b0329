import { assertEquals } from "../_assert.ts";
import {
  installedRealClient,
  installRealClient,
  REAL_CLIENTS,
} from "../../testing/real_clients/install.ts";

for (const spec of REAL_CLIENTS) {
  const found = installedRealClient(spec);
  const own = typeof found !== "string" && found.own;
  Deno.test({
    name: `installRealClient() gives the pinned ${spec.package}@${spec.version}`,
    ignore: typeof found === "string" || own,
    async fn() {
      const client = await installRealClient(spec);
      if (typeof client === "string") throw new Error(client);
      assertEquals([client.spec.version, client.version, client.own], [
        spec.version,
        spec.version,
        false,
      ]);
    },
  });
  Deno.test({
    name: `installedRealClient() takes ${spec.binVariable} as it is and names the version it says`,
    async fn() {
      const dir = await Deno.makeTempDir({ prefix: "turnlog-own-bin-" });
      const bin = `${dir}/${spec.command}`;
      await Deno.writeTextFile(bin, "#!/bin/sh\necho 'tool 9.8.7-beta.1'\n");
      await Deno.chmod(bin, 0o755);
      const before = Deno.env.get(spec.binVariable);
      try {
        Deno.env.set(spec.binVariable, bin);
        const client = await installRealClient(spec);
        if (typeof client === "string") throw new Error(client);
        assertEquals([client.bin, client.version, client.own], [bin, "9.8.7-beta.1", true]);
        Deno.env.set(spec.binVariable, `${dir}/missing`);
        const missing = installedRealClient(spec);
        assertEquals(typeof missing === "string" && missing.includes("could not run"), true);
      } finally {
        if (before === undefined) Deno.env.delete(spec.binVariable);
        else Deno.env.set(spec.binVariable, before);
        await Deno.remove(dir, { recursive: true });
      }
    },
  });
}
