/**
 * The record schemas, loaded the first time a line needs them. zod is about 100 modules: in a
 * static import (even `import defer`, which only delays evaluation) Deno reads and compiles
 * them on every start (about 25 ms of a command's start-up) for files whose lines all pass the
 * hand-written checks (`_validate.ts`) and never ask zod anything. So they are required
 * synchronously (Deno loads an ES module through `require`), out of the static graph, by the
 * rare line that fails those checks.
 *
 * @module
 */
import { errorMessage, TurnlogError } from "../errors/mod.ts";
import type * as Schemas from "./schemas.ts";

type Require = (specifier: string) => unknown;
interface NodeModule {
  createRequire(from: string): Require;
}
interface NodeProcess {
  getBuiltinModule(name: "node:module"): NodeModule;
}

let loaded: typeof Schemas | undefined;

/**
 * The record schemas (`./schemas.ts`), loaded on first use.
 *
 * @throws {TurnlogError} when they cannot be loaded: `require` reads the module's folder,
 * which a program allowed to read only its session files may not
 */
export function recordSchemas(): typeof Schemas {
  if (loaded) return loaded;
  const process = (globalThis as unknown as { process: NodeProcess }).process;
  const require = process.getBuiltinModule("node:module").createRequire(import.meta.url);
  try {
    loaded = require("./schemas.ts") as typeof Schemas;
  } catch (error) {
    const what = new URL("./schemas.ts", import.meta.url).href;
    throw new TurnlogError(
      "internal",
      `a line failed the record checks and zod's schemas (${what}) cannot be loaded to say why: ${
        errorMessage(error)
      }`,
      { cause: error },
    );
  }
  return loaded;
}
