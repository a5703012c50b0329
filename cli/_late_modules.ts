/**
 * The modules the commands' other paths need, each loaded when a command gets to it, out of
 * Deno's sight at start (src/_late.ts): a listing or a search answered from the catalog reads
 * none of them. One loader per module, shared by every command that needs it.
 *
 * @module
 */
import { late } from "../src/_late.ts";

/** The formats' registry and readers. */
export const formatsModule = () =>
  late<typeof import("../src/formats/mod.ts")>("../src/formats/mod.ts", import.meta.url);
/** turnlog's store. */
export const storeModule = () =>
  late<typeof import("../src/store/mod.ts")>("../src/store/mod.ts", import.meta.url);
/** Import, and its lookup of a session in every tool's home. */
export const importModule = () =>
  late<typeof import("../src/import/mod.ts")>("../src/import/mod.ts", import.meta.url);
/** The inspector. */
export const inspectModule = () =>
  late<typeof import("../src/inspect/mod.ts")>("../src/inspect/mod.ts", import.meta.url);
/** Resume's history. */
export const resumeModule = () =>
  late<typeof import("../src/resume/mod.ts")>("../src/resume/mod.ts", import.meta.url);
/** The runtime. */
export const runtimeModule = () =>
  late<typeof import("../src/runtime/mod.ts")>("../src/runtime/mod.ts", import.meta.url);
/** Repair. */
export const repairModule = () =>
  late<typeof import("../src/repair/mod.ts")>("../src/repair/mod.ts", import.meta.url);
/** The archive. */
export const archiveModule = () =>
  late<typeof import("../src/archive/mod.ts")>("../src/archive/mod.ts", import.meta.url);
/** The archive's layout alone: where it is, and whether a path is in its view. */
export const archiveLayoutModule = () =>
  late<typeof import("../src/archive/_layout.ts")>("../src/archive/_layout.ts", import.meta.url);
/** The static site of `inspect --site`. */
export const siteModule = () => late<typeof import("./_site.ts")>("./_site.ts", import.meta.url);
/** A session's HTML page. */
export const htmlModule = () => late<typeof import("./_html.ts")>("./_html.ts", import.meta.url);
