/**
 * Markdown in a session's texts (what assistants write) as HTML for the page, through `marked`
 * with everything that could run or load taken out: raw HTML is escaped text (and what marked
 * makes passes `sanitizeMarkdownHtml`, which keeps markdown's own elements only), a link goes only
 * to `http:`, `https:` or `mailto:` (with `rel="noopener noreferrer"`; any other link is its
 * text), an image is a link to it (the page loads nothing), and headings sit below the page's.
 *
 * @module
 */
// Deferred: marked is evaluated (about 10 ms: its rules) when a text first needs it, which a page
// of plain lines never does.
import defer * as M from "marked";
import type { Token, Tokens } from "marked";
import { escapeCharacter, UNSAFE_CHARACTERS } from "../text/mod.ts";
import { escapeHtml, escapeText } from "./_escape.ts";
import { sanitizeMarkdownHtml } from "./_sanitize.ts";

/** The links a page may hold: none that runs (`javascript:`) or carries data (`data:`). */
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

function anchor(href: string, title: string | null | undefined, inner: string): string {
  const titled = title ? ` title="${escapeHtml(title)}"` : "";
  return `<a href="${escapeHtml(href)}"${titled} rel="noopener noreferrer">${inner}</a>`;
}

/** A link the page does not follow: its text, and where it pointed when that differs. */
function unlinked(href: string, inner: string, text: string): string {
  return href === "" || href === text ? inner : `${inner} (<code>${escapeText(href)}</code>)`;
}

let parser: M.Marked | undefined;
/** The one parser, made when a text first needs it. */
const markdown = () => parser ??= makeMarked();

const makeMarked = () =>
  new M.Marked({
    async: false,
    gfm: true,
    breaks: false,
    // Text after a raw `<pre>`, `<script>` or `<code>` tag is marked "escaped" by the lexer (it
    // takes the tag for the start of a raw block), and the renderer would emit it as it is:
    // every text is escaped where it is written instead.
    walkTokens(token: Token) {
      if (token.type === "text" && "escaped" in token) token.escaped = false;
    },
    renderer: {
      html(token: Tokens.HTML | Tokens.Tag): string {
        const text = escapeText(token.text);
        return "block" in token && token.block ? `<p>${text.trim()}</p>\n` : text;
      },
      link({ href, title, text, tokens }: Tokens.Link): string {
        const inner = this.parser.parseInline(tokens);
        return SAFE_LINK.test(href.trim())
          ? anchor(href, title, inner)
          : unlinked(href, inner, text);
      },
      image({ href, title, text }: Tokens.Image): string {
        const label = `image: ${escapeText(text || href)}`;
        return SAFE_LINK.test(href.trim()) ? anchor(href, title, label) : `[${label}]`;
      },
      heading({ tokens, depth }: Tokens.Heading): string {
        const level = Math.min(depth + 3, 6);
        return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
    },
  });

/**
 * A markdown text as HTML that cannot run or load anything: every character the source holds
 * is text or markdown's own markup, control characters shown as their escapes (`\x1b`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { markdownHtml } from "./_markdown.ts";
 * assert.equal(markdownHtml("**hi** <b>x</b>"), "<p><strong>hi</strong> &lt;b&gt;x&lt;/b&gt;</p>\n");
 * assert.equal(markdownHtml("[a](javascript:alert(1))"), "<p>a (<code>javascript:alert(1)</code>)</p>\n");
 * ```
 */
export function markdownHtml(text: string): string {
  if (isPlainLine(text)) return `<p>${text}</p>\n`;
  const html = markdown().parse(text.replace(UNSAFE_CHARACTERS, escapeCharacter)) as string;
  return sanitizeMarkdownHtml(html);
}

/**
 * One line of plain words, which marked would make one paragraph of, unchanged: it starts with
 * a letter (no list, heading, quote or code), ends with no space, and holds only letters,
 * digits, spaces and `,.;?!()` (nothing to escape, no emphasis, link, tag, entity, table or
 * break; `www.` alone would autolink). Lexing it costs marked a tenth of a millisecond or more;
 * many messages are such a line. tests/html_content_test.ts compares the two on many lines.
 */
export function isPlainLine(text: string): boolean {
  return PLAIN_LINE.test(text) && !text.includes("www.");
}

const PLAIN_LINE = /^[A-Za-z](?:[A-Za-z0-9 ,.;?!()]*[A-Za-z0-9,.;?!()])?$/;
