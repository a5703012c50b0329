/**
 * Byte and line I/O forward alone: exact reads at an offset, a file's lines read forward in
 * chunks (zstd-compressed files too: `isCompressed` tells them) (`mod.ts` adds the backward
 * reader, ranges and objects). The face a walk of sessions' heads imports, so a command
 * answered from the catalog loads no more of io.
 *
 * @module
 */
export * from "./_bytes.ts";
export * from "./_lines.ts";
export { isCompressed } from "./_zstd.ts";
export { cut as cutLine } from "./_cut.ts";
