/**
 * `deno doc --lint` over every entry point of the library's `exports` map, together (as a
 * package is checked): every export documented, no private type in a public signature.
 *
 * One kind of finding is let through: a public type inferred from its zod schema
 * (`z.output<typeof XSchema>`) refers to zod's `output` and to the schema, which stay out of
 * the public face (a schema module in `exports` would load zod with the types, and zod's own
 * types are not ours to document). The schema is the one source of the shape and its fields'
 * comments, which editors show on the inferred type.
 *
 * @module
 */
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
const entries = Object.values(config.exports as Record<string, string>);
const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
  args: ["doc", "--lint", ...entries],
  cwd: root,
  env: { NO_COLOR: "1" },
  stdout: "piped",
  stderr: "piped",
}).output();
const decoder = new TextDecoder();
const said = decoder.decode(stdout) + decoder.decode(stderr);

/** A schema-inferred type's reference to zod's `output`/`input` or to its schema. */
const INFERRED =
  /^error\[private-type-ref\]: public type '\w+' references private type '(?:output|input|\w+Schema)'\n.*\n.*\n\s*\d+ \| export type \w+ = z\.(?:output|input)<typeof /;

const findings = said.split(/\n(?=error\[)/).filter((part) => part.startsWith("error["));
const kept = findings.filter((finding) => !INFERRED.test(finding));
if (kept.length > 0) {
  console.error(kept.join("\n"));
  console.error(`error: Found ${kept.length} documentation lint errors.`);
  Deno.exit(1);
}
if (code !== 0 && findings.length === 0) {
  console.error(said);
  Deno.exit(code);
}
