/**
 * Charts of a session: plain data in, a standalone SVG string out, drawn by Observable Plot on
 * a linkedom DOM (no browser), for the notebooks and the HTML page.
 *
 * @module
 */
export * from "./_charts.ts";
