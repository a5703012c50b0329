/**
 * Display helpers for the notebooks on the Deno Jupyter kernel: tables, text and charts (SVG,
 * with a PNG beside) as MIME bundles that reach Jupyter before the cell ends.
 *
 * @module
 */
export * from "./_display.ts";
export * from "./_png.ts";
