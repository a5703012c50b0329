/**
 * What a whole `inspect --json FILE` process loads besides the read (issue 41): not the
 * archive's writing (`node:crypto`, `node:zlib`: the archive's layout alone says whether a file
 * is in its view), and not the price table once the prices of the session's models and days
 * are kept beside the catalog.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir, writePricedTranscript } from "./_helpers.ts";

const ROOT = new URL("../", import.meta.url);

/** Runs `cli/inspect.ts` with `args`, the modules in `stubs` throwing as they load. */
async function inspectWith(dir: string, args: string[], stubs: string[]) {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const imports: Record<string, string> = { ...config.imports };
  for (const module of stubs) {
    const stub = join(dir, `${module.replaceAll("/", "_")}.stub.ts`);
    await Deno.writeTextFile(stub, `throw new Error(${JSON.stringify(`${module} was loaded`)});\n`);
    imports[new URL(module, ROOT).href] = stub;
  }
  const map = join(dir, "import_map.json");
  await Deno.writeTextFile(map, JSON.stringify({ imports }));
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "-A",
      `--import-map=${map}`,
      fileURLToPath(new URL("cli/inspect.ts", ROOT)),
      ...args,
    ],
    env: { TURNLOG_CATALOG: join(dir, "catalog.sqlite"), NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: out.code, stdout: decoder.decode(out.stdout), stderr: decoder.decode(out.stderr) };
}

Deno.test("inspect --json FILE loads neither the archive's modules nor, once its prices are kept, the price table: the same report", async () => {
  await using dir = await tempDir();
  const path = await writePricedTranscript(dir.path);
  const archive = ["src/archive/mod.ts", "src/archive/_view.ts", "src/archive/_chunks.ts"];
  // The first process asks the table (the stub stops it) ...
  const stopped = await inspectWith(dir.path, ["--json", path], [
    ...archive,
    "src/usage/_prices.ts",
  ]);
  assertEquals(stopped.code, 1);
  assert(stopped.stderr.includes("src/usage/_prices.ts was loaded"), stopped.stderr);
  // ... a process given it keeps its prices, and the next prices from them alone.
  const first = await inspectWith(dir.path, ["--json", path], archive);
  assertEquals(first.code, 0, first.stderr);
  const next = await inspectWith(dir.path, ["--json", path], [...archive, "src/usage/_prices.ts"]);
  assertEquals(next.code, 0, next.stderr);
  assertEquals(next.stdout, first.stdout);
  assert(JSON.parse(next.stdout).session.cost.usd > 0);
});
