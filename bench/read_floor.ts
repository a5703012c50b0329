/**
 * The floors of the catalog's first build, one home a process: every session file (`*.jsonl`)
 * under a root read in one thread, either only parsed (`parse`: `limitParse`, every line
 * decoded and `JSON.parse`d, nothing kept) or inspected (`inspect`: the report a listing's facts
 * come from, with no catalog, no price and nothing looked up beside the file). `bench/catalog.ts`
 * runs one of these for each home at once, on both cores, beside the first build.
 *
 * `deno run -A bench/read_floor.ts parse|inspect ROOT`: prints the files and bytes read.
 *
 * @module
 */
import { join } from "node:path";
import { inspectSession } from "../src/inspect/mod.ts";
import { limitParse } from "./baselines.ts";

/** The `*.jsonl` files under `root`, in name order. */
function sessionFiles(root: string): string[] {
  const files: string[] = [];
  for (const entry of Deno.readDirSync(root)) {
    const path = join(root, entry.name);
    if (entry.isDirectory) files.push(...sessionFiles(path));
    else if (entry.isFile && entry.name.endsWith(".jsonl")) files.push(path);
  }
  return files.sort();
}

const [mode, root] = Deno.args;
if ((mode !== "parse" && mode !== "inspect") || root === undefined) {
  console.error("bench/read_floor.ts: give parse or inspect, then a folder of session files");
  Deno.exit(2);
}
let bytes = 0;
const files = sessionFiles(root);
for (const path of files) {
  bytes += (await Deno.stat(path)).size;
  if (mode === "parse") await limitParse(path);
  else await inspectSession(path, { priced: false, lookups: false });
}
console.log(`${mode}: ${files.length} files, ${bytes} bytes`);
