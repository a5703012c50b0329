/**
 * The last word on what markdown's HTML may hold: after marked renders a text, every tag that
 * is not one of the few elements and attributes turnlog's markdown makes is written back as
 * text. Whatever marked's lexer does with a session's text (a raw `<pre>` or `<script>` makes
 * it pass the text after it through as already escaped), no element of the session's making
 * reaches a page.
 *
 * @module
 */

/** The attributes each element markdown makes may carry, with the values each may take. */
const ALLOWED: Readonly<Record<string, Readonly<Record<string, RegExp>>>> = {
  p: {},
  br: {},
  hr: {},
  strong: {},
  em: {},
  del: {},
  blockquote: {},
  pre: {},
  code: { class: /^language-[\w+#.-]{1,60}$/ },
  h4: {},
  h5: {},
  h6: {},
  ul: {},
  ol: { start: /^\d{1,9}$/ },
  li: {},
  table: {},
  thead: {},
  tbody: {},
  tr: {},
  th: { align: /^(left|center|right)$/ },
  td: { align: /^(left|center|right)$/ },
  input: { type: /^checkbox$/, checked: /^$/, disabled: /^$/ },
  a: {
    href: /^(https?:\/\/|mailto:)[^"<>\s]*$/i,
    title: /^[^"<>]*$/,
    rel: /^noopener noreferrer$/,
  },
  mark: { class: /^bidi$/, title: /^bidi control in the file$/ },
};

/** A tag as turnlog's renderer writes one: a name, attributes in double quotes, nothing more. */
const TAG = /<(\/?)([a-z][a-z0-9]*)((?: [a-z]+="[^"<>]*")*)>/y;
const ATTRIBUTE = / ([a-z]+)="([^"<>]*)"/g;
/** An entity marked or the escaping writes: named, decimal or hexadecimal. */
const ENTITY = /&(?:[a-z][a-z0-9]{1,31}|#\d{1,7}|#x[0-9a-f]{1,6});/iy;
const SPECIAL = /[<>&]/g;

/** True when `tag` (matched by {@linkcode TAG}) is one markdown may make. */
function allowedTag(closing: boolean, name: string, attributes: string): boolean {
  const allowed = ALLOWED[name];
  if (allowed === undefined || !Object.hasOwn(ALLOWED, name)) return false;
  if (closing) return attributes === "";
  for (const [, attribute, value] of attributes.matchAll(ATTRIBUTE)) {
    const rule = Object.hasOwn(allowed, attribute!) ? allowed[attribute!] : undefined;
    if (rule === undefined || !rule.test(value!)) return false;
  }
  return true;
}

/**
 * `html` with every tag that is not one of markdown's elements and attributes (a paragraph,
 * emphasis, code, a list, a table, a link to `http:`, `https:` or `mailto:`, a bidi mark)
 * written as text, and every `&` that starts no entity and every stray `>` escaped. What
 * markdown made is unchanged.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sanitizeMarkdownHtml } from "./_sanitize.ts";
 * assert.equal(sanitizeMarkdownHtml("<p><em>a</em> &amp; b</p>"), "<p><em>a</em> &amp; b</p>");
 * assert.equal(
 *   sanitizeMarkdownHtml(`<p>x <img src=x onerror=alert(1)> <b style="a">y</b></p>`),
 *   `<p>x &lt;img src=x onerror=alert(1)&gt; &lt;b style="a"&gt;y&lt;/b&gt;</p>`,
 * );
 * ```
 */
export function sanitizeMarkdownHtml(html: string): string {
  let out = "";
  let from = 0;
  SPECIAL.lastIndex = 0;
  for (let found = SPECIAL.exec(html); found !== null; found = SPECIAL.exec(html)) {
    const at = found.index;
    out += html.slice(from, at);
    from = at + 1;
    if (html[at] === "<") {
      TAG.lastIndex = at;
      const tag = TAG.exec(html);
      if (tag && allowedTag(tag[1] === "/", tag[2]!, tag[3]!)) {
        out += tag[0];
        from = at + tag[0].length;
      } else out += "&lt;";
    } else if (html[at] === ">") {
      out += "&gt;";
    } else {
      ENTITY.lastIndex = at;
      const entity = ENTITY.exec(html);
      out += entity ? entity[0] : "&amp;";
      if (entity) from = at + entity[0].length;
    }
    SPECIAL.lastIndex = from;
  }
  return out + html.slice(from);
}
