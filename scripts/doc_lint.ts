/**
 * `deno doc --lint` over every entry point of the library's `exports` map, together (as a
 * package is checked): every export documented, no private type in a public signature.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const entries = Object.values(config.exports as Record<string, string>);
const { code } = await new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...entries],
  cwd: root,
}).spawn().status;
Deno.exit(code);
