/**
 * What every chart shares: its options, the frame and header drawn around the plot, the axes'
 * ticks, and the SVG made standalone. Observable Plot draws on the few DOM members it needs
 * (`./_svg_dom.ts`; no browser).
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import type * as Plot from "@observablehq/plot";
import { clip } from "../text/mod.ts";
import { SvgDocument as ChartDocument } from "./_svg_dom.ts";

/** What every chart accepts. */
export interface ChartOptions {
  /** The headline, in plain words. */
  title?: string;
  /** One line under the title: what to look at. */
  subtitle?: string;
  /** Width in pixels (default 640). */
  width?: number;
  /** Height of the plot area and axes in pixels, without the title (default 320). */
  height?: number;
}

const FONT = "system-ui, -apple-system, 'Segoe UI', sans-serif";
const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * The turn numbers an x axis writes: every turn while there is room, else every n-th, so
 * that no two numbers run into each other (about 7 pixels a digit at 12 px, and a gap).
 */
export function turnTicks(turns: readonly number[], width: number): number[] {
  const digits = String(turns.at(-1) ?? 1).length;
  const room = Math.max(2, Math.floor((width - 90) / (digits * 7 + 14)));
  const step = Math.ceil(turns.length / Math.min(room, 16));
  return turns.filter((_, index) => index % step === 0);
}

/** Whole-number ticks from 0 past `max`, about eight of them: counts have no halves. */
export function integerTicks(max: number): number[] {
  const rough = Math.max(1, max / 8);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((factor) => factor * magnitude).find((value) => value >= rough) ??
    10 * magnitude;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step; tick += step) ticks.push(tick);
  return ticks;
}

export interface LegendEntry {
  label: string;
  color: string;
}

export interface ChartHeader {
  /** Pixels above the plot's own top margin. */
  height: number;
  /** The chart's width in pixels. */
  width: number;
  title: string;
  /** The subtitle wrapped to at most two lines (the second shortened when still too long). */
  subtitle: string[];
  legend: { label: string; color: string; x: number; y: number }[];
}

/** Pixels per character of the 12 px subtitle, as the charts' DOM cannot measure text. */
const SUBTITLE_CHAR = 6.5;

/** Wraps `text` at spaces into lines of at most `chars` characters; the last line is clipped. */
function wrapText(text: string, chars: number, maxLines: number): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (rest.length > chars && lines.length < maxLines - 1) {
    const cut = rest.lastIndexOf(" ", chars);
    const at = cut > 0 ? cut : chars;
    lines.push(rest.slice(0, at));
    rest = rest.slice(at).trimStart();
  }
  if (rest !== "") lines.push(clip(rest, chars));
  return lines;
}

/** The size, margins and style every turnlog chart shares, below its header. */
export function plotFrame(width: number, height: number | undefined, header: ChartHeader) {
  return {
    document: newDocument(),
    className: "turnlog-chart",
    width,
    height: (height ?? 320) + header.height,
    marginTop: header.height + 24,
    marginLeft: 64,
    marginBottom: 44,
    style: { fontSize: "12px", fontFamily: FONT, background: "white" },
  };
}

/** Lays out the title, subtitle and legend; the legend wraps to the chart's width. */
export function chartHeader(
  title: string,
  subtitle: string | undefined,
  legend: LegendEntry[],
  width: number,
): ChartHeader {
  const lines = subtitle ? wrapText(subtitle, Math.floor((width - 32) / SUBTITLE_CHAR), 2) : [];
  let y = 44 + 16 * lines.length + (lines.length > 0 ? 6 : 0);
  let x = 16;
  const placed: ChartHeader["legend"] = [];
  for (const entry of legend) {
    // The DOM cannot measure text; 7 px per character is generous at 12 px.
    const entryWidth = 22 + entry.label.length * 7 + 16;
    if (x + entryWidth > width - 16 && x > 16) {
      x = 16;
      y += 20;
    }
    placed.push({ ...entry, x, y });
    x += entryWidth;
  }
  return {
    height: y + (legend.length > 0 ? 12 : -8),
    width,
    title,
    subtitle: lines,
    legend: placed,
  };
}

/**
 * Shortens a line to what fits `pixels` at about `perChar` pixels a character (the DOM cannot
 * measure text); the SVG's `<title>` keeps the whole title.
 */
function fitText(text: string, pixels: number, perChar: number): string {
  return clip(text, Math.floor(pixels / perChar));
}

/** The few DOM members this module uses; Deno's type check has no DOM library. */
interface SvgNode {
  tagName: string;
  textContent: string | null;
  outerHTML: string;
  firstChild: SvgNode | null;
  nextSibling: SvgNode | null;
  ownerDocument: SvgDocument;
  setAttribute(name: string, value: string): void;
  querySelector(selector: string): SvgNode | null;
  insertBefore(node: SvgNode, before: SvgNode | null): void;
}

interface SvgDocument {
  createElementNS(namespace: string, name: string): SvgNode;
}

type PlotDocument = NonNullable<Plot.PlotOptions["document"]>;

function newDocument(): PlotDocument {
  return new ChartDocument() as unknown as PlotDocument;
}

/**
 * Makes Plot's SVG standalone (namespace, white background, so it reads in a dark theme and
 * as an image) and draws the header into its top margin.
 */
export function finishSvg(rendered: unknown, header: ChartHeader): string {
  const plot = rendered as SvgNode;
  const document = plot.ownerDocument;
  const svg = plot.tagName.toLowerCase() === "svg" ? plot : plot.querySelector("svg");
  if (svg === null) throw new TurnlogError("internal", "Plot did not render an SVG element");
  const element = (name: string, attributes: Record<string, string | number>) => {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    return node;
  };
  svg.setAttribute("xmlns", SVG_NS);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", header.title);
  const title = element("title", {});
  title.textContent = header.title;
  const background = element("rect", { width: "100%", height: "100%", fill: "white" });
  const heading = element("text", {
    x: 16,
    y: 24,
    "text-anchor": "start",
    "font-size": 16,
    "font-weight": "bold",
    fill: "#1f2328",
  });
  heading.textContent = fitText(header.title, header.width - 32, 9.5);
  const added: SvgNode[] = [title, background, heading];
  for (const [index, text] of header.subtitle.entries()) {
    const line = element("text", {
      x: 16,
      y: 44 + 16 * index,
      "text-anchor": "start",
      "font-size": 12,
      fill: "#59636e",
    });
    line.textContent = text;
    added.push(line);
  }
  for (const entry of header.legend) {
    added.push(element("rect", {
      x: entry.x,
      y: entry.y - 10,
      width: 14,
      height: 14,
      rx: 2,
      fill: entry.color,
    }));
    const label = element("text", {
      x: entry.x + 20,
      y: entry.y + 1,
      "text-anchor": "start",
      fill: "#1f2328",
    });
    label.textContent = entry.label;
    added.push(label);
  }
  const style = svg.querySelector("style");
  const anchor = style?.nextSibling ?? svg.firstChild;
  for (const node of added) svg.insertBefore(node, anchor);
  return svg.outerHTML;
}
