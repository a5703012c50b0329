/**
 * Byte and line I/O: a file's lines read forward in chunks or backward in blocks, in bounded
 * memory, with their byte offsets; exact reads and writes at an offset.
 *
 * @module
 */
export * from "./_bytes.ts";
export * from "./_lines.ts";
export * from "./_backward.ts";
export * from "./_objects.ts";
export * from "./_zstd.ts";
export * from "./_ranges.ts";
export * from "./_sha256.ts";
export { cut as cutLine } from "./_cut.ts";
