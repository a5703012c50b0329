/**
 * Session text that tries to write markup into a page (HTML, markdown and tag soup, as
 * fast-check arbitraries), sessions of every format made of it, and the one check a page's
 * DOM must pass: only the elements and attributes turnlog's pages make. The check is a
 * self-contained function, so it runs on linkedom's document and, passed to
 * `page.evaluate`, on the DOM Chromium builds.
 *
 * @module
 */
import fc from "fast-check";
import { join } from "node:path";
import { RUN_BASE } from "./_helpers.ts";
import { makeRecord, responseItemRecord } from "../src/record/mod.ts";
import { initializeSessionForRun } from "../src/resume/mod.ts";
import { ClaudeTranscriptBuilder } from "../testing/formats/claude_builder.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { GeminiSessionBuilder } from "../testing/formats/gemini_builder.ts";

/** Tags that make marked take what follows for a raw block (issue 39's way in). */
export const RAW_OPENERS = ["<script>", "<pre>", "<kbd>", "<code>", "<textarea>", "<style>"];

/** Markup that harms a page if it ever becomes markup: each marked `data-evil`. */
export const PAYLOADS = {
  refresh: `<meta data-evil http-equiv=refresh content="0;url=https://evil.test/">`,
  overlay:
    `<div data-evil style="position:fixed;inset:0;background:red;z-index:9999">overlay</div>`,
  onerror: `<img data-evil src=x onerror="window.__pwned=1">`,
} as const;

/** Fragments hostile text is made of: tags (whole, unclosed, marked), markdown, entities. */
const FRAGMENTS = [
  ...RAW_OPENERS,
  ...Object.values(PAYLOADS),
  "</pre>",
  "</script>",
  "</code>",
  "</p>",
  "</details>",
  "</div>",
  `<img data-evil src=x onerror=window.__pwned=1//`,
  `<a data-evil href="javascript:window.__pwned=1">x</a>`,
  `<svg data-evil onload="window.__pwned=1">`,
  `<iframe data-evil srcdoc="<script>window.__pwned=1</script>"></iframe>`,
  `<p class="evil" id="evil">`,
  `<b data-evil>b</b>`,
  `<base data-evil href="https://evil.test/">`,
  `<link data-evil rel=stylesheet href="https://evil.test/x.css">`,
  `<form data-evil action="https://evil.test/"><button>go</button></form>`,
  "<!--",
  "-->",
  "<![CDATA[",
  "&lt;",
  "&#60;",
  "&amp;",
  "&",
  "<",
  ">",
  '"',
  "'",
  "**",
  "_",
  "`",
  "```",
  "\n```html\n",
  "\n\n",
  "\n- ",
  "\n1. ",
  "\n# ",
  "\n> ",
  "\n| a | b |\n|---|---|\n| <b data-evil>c</b> | d |\n",
  "[x](",
  "](javascript:alert(1))",
  "![i](https://evil.test/i.png)",
  "<https://evil.test>",
  "\\",
  "    indented <b data-evil>",
  "\u202e",
  "\x1b[31m",
];

/** A text made of hostile fragments and random characters. */
export const hostileText: fc.Arbitrary<string> = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom("a", " ", "word", "x y") },
  ),
  { minLength: 1, maxLength: 14 },
).map((parts) => parts.join(""));

/** The texts one session is made of: its prompt, answer, a call's input and output, an edit. */
export interface HostileTexts {
  prompt: string;
  answer: string;
  input: string;
  output: string;
  before: string;
  after: string;
}

/** Six hostile texts for one session. */
export const hostileTexts: fc.Arbitrary<HostileTexts> = fc.record({
  prompt: hostileText,
  answer: hostileText,
  input: hostileText,
  output: hostileText,
  before: hostileText,
  after: hostileText,
});

/** A session file of one format, written from hostile texts. */
export interface HostileSession {
  format: string;
  path: string;
}

function claudeText(t: HostileTexts): string {
  const b = new ClaudeTranscriptBuilder();
  b.user(t.prompt);
  b.assistant([{ text: t.answer }], { stop: "end_turn" });
  b.user(t.prompt);
  const [call] = b.assistant([{
    toolUse: { id: "toolu_1", name: "Bash", input: { command: t.input } },
  }], { stop: "tool_use" });
  b.toolResult("toolu_1", t.output, { parent: call! });
  const [edit] = b.assistant([{
    toolUse: {
      id: "toolu_2",
      name: "Edit",
      input: { file_path: `/work/${t.input}`, old_string: t.before, new_string: t.after },
    },
  }], { stop: "tool_use" });
  b.toolResult("toolu_2", t.output, { parent: edit! });
  b.assistant([{ text: t.answer }], { stop: "end_turn" });
  return b.lines.join("\n") + "\n";
}

function codexText(t: HostileTexts): string {
  const patch = `*** Begin Patch\n*** Update File: ${t.input.replace(/\n/g, " ")}\n@@\n-${
    t.before.replace(/\n/g, " ")
  }\n+${t.after.replace(/\n/g, " ")}\n*** End Patch`;
  return new CodexRolloutBuilder().meta().taskStarted("t1")
    .prompt(t.prompt)
    .call("c1", "exec_command", JSON.stringify({ cmd: t.input }))
    .output("c1", t.output)
    .customCall("p1", patch)
    .customOutput("p1", t.output)
    .answer(t.answer)
    .taskComplete("t1")
    .text();
}

function geminiText(t: HostileTexts): string {
  return new GeminiSessionBuilder().context()
    .user(t.prompt)
    .gemini({
      text: t.answer,
      calls: [{
        name: "run_shell_command",
        wire: "run_shell_command_1_0",
        args: { command: t.input },
        output: t.output,
      }],
    })
    .gemini({ text: t.answer })
    .text();
}

async function turnlogSession(dir: string, t: HostileTexts): Promise<string> {
  const run = await initializeSessionForRun({
    ...RUN_BASE,
    root: dir,
    cwd: `/work/${t.input}`,
    message: t.prompt,
  });
  await run.writer.append([
    responseItemRecord({
      type: "function_call",
      callId: "call_1",
      name: "shell",
      arguments: JSON.stringify({ command: t.input }),
    }),
    responseItemRecord({
      type: "function_call_output",
      callId: "call_1",
      toolName: "shell",
      output: t.output,
      isError: false,
    }),
    responseItemRecord({ type: "message", role: "assistant", content: t.answer }),
    makeRecord("run_finished", { runId: run.runId, outcome: "failed", error: t.after, rounds: 2 }),
  ]);
  run.writer.close();
  return run.location.path;
}

/** One session of each format (turnlog's, Claude Code's, Codex's, Gemini's) made of `texts`. */
export async function hostileSessions(dir: string, texts: HostileTexts): Promise<HostileSession[]> {
  const write = async (name: string, text: string) => {
    const path = join(dir, name);
    await Deno.writeTextFile(path, text);
    return path;
  };
  return [
    { format: "turnlog", path: await turnlogSession(join(dir, "sessions"), texts) },
    {
      format: "claude-code",
      path: await write("7acd37a8-0000-4000-8000-000000000001.jsonl", claudeText(texts)),
    },
    {
      format: "codex",
      path: await write(
        "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-000000000001.jsonl",
        codexText(texts),
      ),
    },
    {
      format: "gemini",
      path: await write("session-2026-12-01T10-00-5a7e0c1d.jsonl", geminiText(texts)),
    },
  ];
}

/** As much of a DOM as {@linkcode markupViolations} reads (the tests have no DOM library). */
interface CheckedDocument {
  head: unknown;
  querySelectorAll(selector: string): Iterable<CheckedElement>;
}
interface CheckedElement {
  tagName: string;
  parentNode: unknown;
  attributes: Iterable<{ name: string; value: string }>;
  closest(selector: string): unknown;
}

/**
 * What in a page's DOM turnlog did not make: an element of another name, an SVG element
 * outside the charts, a `<meta>` outside the head, an attribute that runs (`on*`), styles,
 * loads or navigates, a link that is not to the page, the server or `http(s):`/`mailto:`,
 * anything marked `data-evil`/`evil`; at most `scripts` scripts. Empty: the page is clean.
 * Self-contained (no outer names): Chromium runs it as `page.evaluate(markupViolations, n)`.
 */
export function markupViolations(document: CheckedDocument, scripts = 0): string[] {
  const PAGE = new Set(
    ("html head meta title style body header main footer nav section p span a h1 h2 h3 h4 h5 h6 " +
      "dl dt dd code pre b strong em del ins br hr div details summary ul ol li blockquote table " +
      "thead tbody tr th td input mark figure form button script").split(" "),
  );
  const CHART = new Set("svg g rect text tspan line path title circle polyline".split(" "));
  const NAVIGATES = new Set(["src", "srcdoc", "action", "formaction", "style", "background"]);
  const out: string[] = [];
  let scriptCount = 0;
  for (const element of document.querySelectorAll("*")) {
    const tag = element.tagName.toLowerCase();
    const inChart = element.closest("figure[data-chart]") !== null;
    if (tag === "script") scriptCount++;
    if (!PAGE.has(tag) && !(inChart && CHART.has(tag))) {
      out.push(`<${tag}> is not an element turnlog makes here`);
    }
    if (tag === "meta" && element.parentNode !== document.head) out.push("<meta> in the body");
    if (tag === "title" && !inChart && element.parentNode !== document.head) {
      out.push("<title> in the body");
    }
    for (const { name, value } of element.attributes) {
      const attribute = name.toLowerCase();
      if (attribute.startsWith("on")) out.push(`<${tag} ${attribute}>`);
      if (attribute === "data-evil" || /\bevil\b/.test(value) && /^(id|class)$/.test(attribute)) {
        out.push(`<${tag} ${attribute}="${value}">: made by the session`);
      }
      if (NAVIGATES.has(attribute)) out.push(`<${tag} ${attribute}>`);
      if (attribute === "http-equiv" && value.toLowerCase() !== "content-security-policy") {
        out.push(`<${tag} http-equiv="${value}">`);
      }
      if (attribute === "href" && !/^(#|\/(?!\/)|https?:\/\/|mailto:)/i.test(value)) {
        out.push(`<${tag} href="${value}">`);
      }
    }
  }
  if (scriptCount > scripts) out.push(`${scriptCount} scripts, at most ${scripts} allowed`);
  return out;
}
