/**
 * What the notebooks show: charts of a session drawn by Observable Plot, and display helpers
 * for the Deno Jupyter kernel.
 *
 * @module
 */
export * from "./_charts.ts";
export * from "./_display.ts";
