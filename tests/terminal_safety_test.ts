/**
 * Session text made safe for a terminal and a page: escape sequences, C1, CR, DEL and bidi
 * controls from a session are shown escaped by every command, never sent raw.
 */
import { join } from "node:path";
import { escapeText, renderSessionPage } from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { visible, visibleJson } from "../src/text/mod.ts";
import { CodexRolloutBuilder } from "../testing/formats/codex_builder.ts";
import { RAW_CONTROL } from "./_terminal_properties.ts";
import { assert, assertEquals } from "./_assert.ts";
import { inspect } from "./_cli.ts";
import { tempDir } from "./_helpers.ts";

const EVIL = "\x1b]52;c;cHduZWQ=\x07\x1b[2J\u202e\u2066\r\x9b";
const EVIL_ID = `019e1695-0000-7000-8000-000000000001${EVIL}`;

Deno.test("visible() shows C0, ESC, CR, DEL, C1 and bidi controls escaped, keeps newlines", () => {
  assertEquals(
    visible(`a${EVIL}\x7f\n\tb`),
    "a\\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\\u202e\\u2066\\x0d\\x9b\\x7f\n  b",
  );
  assertEquals(JSON.parse(visibleJson({ id: EVIL })), { id: EVIL });
  assert(!RAW_CONTROL.test(visibleJson({ id: EVIL }, 2)));
});

Deno.test("escapeText() escapes a bidi override on the page and marks it", () => {
  assertEquals(
    escapeText("a\u202eb<"),
    'a<mark class="bidi" title="bidi control in the file">\\u202e</mark>b&lt;',
  );
});

async function evilRollout(root: string): Promise<string> {
  const dir = join(root, "2026", "02", "23");
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, "rollout-2026-02-23T12-00-00-019e1695.jsonl");
  await Deno.writeTextFile(
    path,
    new CodexRolloutBuilder().meta({ id: EVIL_ID }).turnContext().prompt(`hi${EVIL}`)
      .answer(`ok${EVIL}`).text(),
  );
  return path;
}

Deno.test("inspect prints a Codex session_meta id escaped, in the view and the listing", async () => {
  await using dir = await tempDir();
  const path = await evilRollout(dir.path);
  for (const args of [[path], [path, "--json"], ["--list", "--sessions-dir", dir.path]]) {
    const ran = await inspect(args, { NO_COLOR: "1" });
    assertEquals(ran.code, 0, ran.stderr);
    assert(!RAW_CONTROL.test(ran.stdout + ran.stderr), `${args}: ${JSON.stringify(ran.stdout)}`);
  }
  assert((await inspect([path])).stdout.includes("000000000001\\x1b]52;c;cHduZWQ=\\x07"));
});

Deno.test("import prints a Codex session_meta id escaped", async () => {
  await using dir = await tempDir();
  const path = await evilRollout(join(dir.path, "codex"));
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../cli/import.ts", import.meta.url).pathname,
      path,
      "--to",
      join(dir.path, "s"),
    ],
    env: { NO_COLOR: "1" },
  }).output();
  const printed = new TextDecoder().decode(output.stdout) + new TextDecoder().decode(output.stderr);
  assertEquals(output.code, 0, printed);
  assert(printed.includes("session 019e1695-0000-7000-8000-000000000001\\x1b]52"), printed);
  assert(!RAW_CONTROL.test(printed), JSON.stringify(printed));
});

Deno.test("renderSessionPage() never holds a raw bidi control from the session", async () => {
  await using dir = await tempDir();
  const path = await evilRollout(dir.path);
  const page = renderSessionPage(await inspectSession(path, { entries: true }));
  assert(!/[\u202a-\u202e\u2066-\u2069]/.test(page));
  assert(page.includes('<mark class="bidi"'));
});
