/**
 * SHA-256 of a text, synchronously (`../io/_sha256.ts`), for the hashes a Content-Security-Policy
 * allows a page's stylesheet by: Web Crypto's digest is asynchronous, and `node:crypto` (a
 * polyfill) cost a page about 20 ms of CPU to load. A stylesheet of 10 KB hashes in well under
 * a millisecond.
 *
 * @module
 */

import { sha256 } from "../io/_sha256.ts";

/**
 * The CSP source that allows an inline `<style>` or `<script>` holding exactly `text`:
 * `'sha256-<base64 of its UTF-8's SHA-256>'`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hashSource } from "./_sha256.ts";
 * assert.equal(hashSource("abc"), "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='");
 * ```
 */
export function hashSource(text: string): string {
  const digest = sha256(new TextEncoder().encode(text));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  return `'sha256-${btoa(binary)}'`;
}
