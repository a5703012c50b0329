/**
 * The few DOM members Observable Plot and d3-selection use to draw turnlog's charts, and an
 * `outerHTML` that writes the very bytes linkedom wrote: linkedom (a whole HTML DOM, its
 * parser, selector engine and node polyfills) cost the session page about 70 ms of CPU to load,
 * for charts that only ever create, fill and order SVG elements.
 *
 * What linkedom's serialization did, kept here: an element's attributes newest first (a value
 * set again keeps its place); a value's `"` written `&quot;` and nothing else escaped; an empty
 * `id`, `class` or `style` left out; an SVG element without children closed by ` />`; text's
 * `&`, `<`, `>` and no-break space escaped; `style` as `name:value` pairs joined by `;`, each
 * name hyphenated from Plot's camel case. tests/charts_test.ts renders charts both ways.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";

const SVG_NS = "http://www.w3.org/2000/svg";
const XHTML_NS = "http://www.w3.org/1999/xhtml";

/** Attributes linkedom leaves out when their value is empty. */
const DROPPED_WHEN_EMPTY = new Set(["id", "class", "style"]);

const TEXT_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  "\xA0": "&#160;",
};

const escapeText = (text: string) => text.replace(/[<>&\xA0]/g, (c) => TEXT_ESCAPES[c]!);

/** `fontSize` to `font-size`, as linkedom's style did (its `uhyphen`). */
const hyphenate = (name: string) =>
  name.replace(/(([A-Z0-9])([A-Z0-9][a-z]))|(([a-z0-9]+)([A-Z]))/g, "$2$5-$3$6").toLowerCase();

/** A text node: what `textContent` makes. */
class TextNode {
  readonly nodeType = 3;
  parentNode: SvgElement | null = null;
  constructor(readonly data: string) {}
  get textContent(): string {
    return this.data;
  }
  toString(): string {
    return escapeText(this.data);
  }
}

type Child = SvgElement | TextNode;

/** An element's inline style, kept in its `style` attribute (Plot assigns camel-case names). */
function styleOf(element: SvgElement): Record<string, unknown> {
  const properties = new Map<string, string>();
  const write = () =>
    element.setAttribute("style", [...properties].map(([k, v]) => `${k}:${v}`).join(";"));
  const methods = {
    setProperty(name: string, value: unknown) {
      if (value === null || value === undefined) properties.delete(hyphenate(name));
      else properties.set(hyphenate(name), String(value));
      write();
    },
    removeProperty(name: string) {
      methods.setProperty(name, null);
    },
    getPropertyValue: (name: string) => properties.get(hyphenate(name)) ?? "",
  };
  return new Proxy(methods, {
    get: (target, name) =>
      typeof name === "string" && !(name in target) ? properties.get(hyphenate(name)) ?? "" : (
        target as Record<string | symbol, unknown>
      )[name],
    set: (_, name, value) => {
      methods.setProperty(String(name), value);
      return true;
    },
  });
}

/** An SVG element (the document's root stands in for `<html>`: it is never written). */
class SvgElement {
  readonly nodeType = 1;
  parentNode: SvgElement | null = null;
  readonly childNodes: Child[] = [];
  readonly tagName: string;
  readonly #attributes = new Map<string, string>();
  #style: Record<string, unknown> | undefined;

  constructor(
    readonly ownerDocument: SvgDocument,
    readonly localName: string,
    readonly namespaceURI: string = SVG_NS,
  ) {
    this.tagName = localName;
  }

  get style(): Record<string, unknown> {
    return this.#style ??= styleOf(this);
  }
  get children(): SvgElement[] {
    return this.childNodes.filter((node): node is SvgElement => node instanceof SvgElement);
  }
  get firstChild(): Child | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): Child | null {
    return this.childNodes.at(-1) ?? null;
  }
  get firstElementChild(): SvgElement | null {
    return this.children[0] ?? null;
  }
  get nextSibling(): Child | null {
    const siblings = this.parentNode?.childNodes;
    return siblings?.[siblings.indexOf(this) + 1] ?? null;
  }
  get previousSibling(): Child | null {
    const siblings = this.parentNode?.childNodes;
    return siblings?.[siblings.indexOf(this) - 1] ?? null;
  }
  get isConnected(): boolean {
    return false;
  }

  getAttribute(name: string): string | null {
    return this.#attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.#attributes.has(name);
  }
  setAttribute(name: string, value: unknown): void {
    this.#attributes.set(name, String(value));
  }
  setAttributeNS(_: string | null, name: string, value: unknown): void {
    this.setAttribute(name, value);
  }
  removeAttribute(name: string): void {
    this.#attributes.delete(name);
  }
  removeAttributeNS(_: string | null, name: string): void {
    this.removeAttribute(name);
  }

  appendChild<T extends Child>(node: T): T {
    return this.insertBefore(node, null);
  }
  /** Also what `append` does with one node; a node moves from where it was. */
  insertBefore<T extends Child>(node: T, before: Child | null): T {
    node.parentNode?.removeChild(node);
    const at = before === null ? -1 : this.childNodes.indexOf(before);
    if (at < 0) this.childNodes.push(node);
    else this.childNodes.splice(at, 0, node);
    node.parentNode = this;
    return node;
  }
  append(...nodes: Child[]): void {
    for (const node of nodes) this.appendChild(node);
  }
  removeChild<T extends Child>(node: T): T {
    const at = this.childNodes.indexOf(node);
    if (at >= 0) this.childNodes.splice(at, 1);
    node.parentNode = null;
    return node;
  }
  remove(): void {
    this.parentNode?.removeChild(this);
  }

  get textContent(): string {
    return this.childNodes.map((node) => node.textContent).join("");
  }
  set textContent(text: unknown) {
    for (const node of this.childNodes) node.parentNode = null;
    this.childNodes.length = 0;
    if (text !== null && text !== undefined && text !== "") {
      this.appendChild(new TextNode(String(text)));
    }
  }

  /** Only tag names: all Plot and d3 ask of the charts (anything else is refused). */
  matches(selector: string): boolean {
    if (!/^[a-z][a-z0-9-]*$/i.test(selector)) {
      throw new TurnlogError("internal", `the charts' DOM cannot match "${selector}"`);
    }
    return this.localName === selector;
  }
  querySelectorAll(selector: string): SvgElement[] {
    const found: SvgElement[] = [];
    for (const child of this.children) {
      if (child.matches(selector)) found.push(child);
      found.push(...child.querySelectorAll(selector));
    }
    return found;
  }
  querySelector(selector: string): SvgElement | null {
    return this.querySelectorAll(selector)[0] ?? null;
  }

  /** 4 when `other` comes after this element in the tree, 2 when before (d3's `order`). */
  compareDocumentPosition(other: SvgElement): number {
    const path = (node: SvgElement) => {
      const indexes: number[] = [];
      for (let at: SvgElement = node; at.parentNode; at = at.parentNode) {
        indexes.unshift(at.parentNode.childNodes.indexOf(at));
      }
      return indexes;
    };
    const [mine, theirs] = [path(this), path(other)];
    for (let i = 0; i < Math.min(mine.length, theirs.length); i++) {
      if (mine[i] !== theirs[i]) return mine[i]! < theirs[i]! ? 4 : 2;
    }
    return mine.length < theirs.length ? 20 : 10;
  }

  addEventListener(): void {}
  removeEventListener(): void {}
  dispatchEvent(): boolean {
    return true;
  }

  get outerHTML(): string {
    return this.toString();
  }
  toString(): string {
    const attributes = [...this.#attributes].reverse()
      .filter(([name, value]) => value !== "" || !DROPPED_WHEN_EMPTY.has(name))
      .map(([name, value]) => ` ${name}="${value.replaceAll('"', "&quot;")}"`).join("");
    const open = `<${this.localName}${attributes}`;
    if (this.childNodes.length === 0) return `${open} />`;
    return `${open}>${this.childNodes.join("")}</${this.localName}>`;
  }
}

/** The document Plot draws on. */
export class SvgDocument {
  /** Stands in for `<html>`: Plot creates its `<svg>` from it. */
  readonly documentElement: SvgElement = new SvgElement(this, "html", XHTML_NS);
  readonly defaultView = null;

  createElementNS(namespace: string, name: string): SvgElement {
    if (namespace !== SVG_NS) {
      throw new TurnlogError("internal", `the charts' DOM makes SVG elements, not ${name}`);
    }
    return new SvgElement(this, name);
  }
  createElement(name: string): SvgElement {
    throw new TurnlogError("internal", `the charts' DOM makes SVG elements, not <${name}>`);
  }
  createTextNode(text: string): TextNode {
    return new TextNode(String(text));
  }
}
