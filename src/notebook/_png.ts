/**
 * A chart's SVG drawn as a PNG in this process, by resvg (`npm:@resvg/resvg-js`: Rust, its
 * native binary installed from npm for the platform), so that a viewer that drops or
 * sanitizes SVG still shows the chart. The same SVG and fonts give the same bytes.
 *
 * @module
 */
import { Buffer } from "node:buffer";

/** The family the charts' `sans-serif` text is drawn in, when the machine has it. */
export const PNG_FONT_FAMILY = "DejaVu Sans";

/**
 * The PNG of `svg` at its own size (a 640 × 418 chart gives a 640 × 418 image), on white,
 * its text in the machine's fonts ({@linkcode PNG_FONT_FAMILY} for `sans-serif`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { svgToPng } from "./mod.ts";
 * const png = await svgToPng('<svg xmlns="http://www.w3.org/2000/svg" width="4" height="2"/>');
 * assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47]); // "PNG"
 * ```
 */
export async function svgToPng(svg: string): Promise<Uint8Array> {
  // Loaded here: only a notebook's chart needs the native renderer.
  const { Resvg } = await import("@resvg/resvg-js");
  const rendered = new Resvg(svg, {
    background: "white",
    font: {
      loadSystemFonts: true,
      defaultFontFamily: PNG_FONT_FAMILY,
      sansSerifFamily: PNG_FONT_FAMILY,
    },
  }).render();
  return new Uint8Array(rendered.asPng());
}

/** The PNG of `svg`, base64-encoded as a Jupyter bundle carries it. */
export async function svgToPngBase64(svg: string): Promise<string> {
  return Buffer.from(await svgToPng(svg)).toString("base64");
}
