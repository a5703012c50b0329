/**
 * Helpers for the HTML page tests: hostile text, a session made of it through the
 * foundation's own API, and the rendered page parsed back with linkedom.
 *
 * @module
 */
import { parseHTML } from "linkedom";
import { RUN_BASE } from "./_helpers.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";

/** Markup that would run a script or break the page if it were ever taken as HTML. */
export const EVIL =
  `<script>window.__pwned=1</script> <img src=x onerror="window.__pwned=1"> </details><script>window.__pwned=1</script> "quotes' & <b>bold</b>`;

/** A DOM node, as far as the tests use one (Deno's type check has no DOM library). */
export interface DomNode {
  textContent: string | null;
  tagName: string;
  hasAttribute(name: string): boolean;
  getAttribute(name: string): string | null;
  querySelectorAll(selector: string): DomNode[];
  querySelector(selector: string): DomNode | null;
  closest(selector: string): DomNode | null;
}

/** The document of a rendered page. */
export function parsePage(html: string): DomNode {
  const { document } = parseHTML(html) as unknown as { document: DomNode };
  return document;
}

/** The texts of every element matching `selector`. */
export function texts(root: DomNode, selector: string): (string | null)[] {
  return [...root.querySelectorAll(selector)].map((node) => node.textContent);
}

/** The attribute values of every element matching `selector`. */
export function attributes(root: DomNode, selector: string, name: string): (string | null)[] {
  return [...root.querySelectorAll(selector)].map((node) => node.getAttribute(name));
}

/**
 * A session of two turns whose every free text is {@linkcode EVIL}: the cwd, the user
 * message, a tool call's id and arguments, its output, the assistant's answer and the
 * run's error. Returns the session file's path.
 */
export async function evilSession(root: string): Promise<string> {
  const first = await initializeSessionForRun({
    ...RUN_BASE,
    root,
    cwd: `/work/${EVIL}`,
    message: `read this: ${EVIL}`,
  });
  await first.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: `call-${EVIL}`,
      name: "read_file",
      arguments: JSON.stringify({ path: EVIL }),
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: `call-${EVIL}`,
      toolName: "read_file",
      output: `${EVIL}\n`.repeat(40),
      isError: false,
    }),
    responseItemRecord({ type: "message", role: "assistant", content: `It says ${EVIL}` }),
    makeRecord("run_finished", {
      runId: first.runId,
      outcome: "failed",
      error: EVIL,
      rounds: 2,
    }),
  ]);
  first.writer.close();
  const second = await initializeSessionForRun({
    ...RUN_BASE,
    root,
    sessionId: first.sessionId,
    message: EVIL,
  });
  second.writer.close();
  return first.location.path;
}
