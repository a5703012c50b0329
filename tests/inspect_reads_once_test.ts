/**
 * Each command reads a file once: `inspect` (its report as text and as JSON) reads a session
 * file of every format in the registry exactly as much as telling its format from the head and
 * one read by its adapter do, so the check the inspector makes comes with the read
 * (`ForeignFacts.checked`) and costs no read of its own.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { countIo } from "../testing/io_counter.ts";
import { detectFormat, FORMATS } from "../src/formats/mod.ts";
import { inspectSession, renderReport } from "../src/inspect/mod.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { claudeBasic } from "../testing/formats/claude_fixtures.ts";
import { geminiToolSession } from "../testing/formats/gemini_builder.ts";

const EXAMPLE =
  "sessions/2026/01/15/2026-01-15T09-00-00-000Z-019bc0e2-1280-705c-b071-0a2ebd22e0b2.jsonl";

/** A file of each format by its adapter's name: its name in a folder, and its text. */
const FIXTURES: Record<string, () => Promise<{ name: string; text: string }>> = {
  turnlog: async () => ({
    name: "2026-01-15T09-00-00-000Z-019bc0e2-1280-705c-b071-0a2ebd22e0b2.jsonl",
    text: await Deno.readTextFile(new URL(`../${EXAMPLE}`, import.meta.url)),
  }),
  codex: () =>
    Promise.resolve({
      name: "rollout-2026-02-23T12-40-23-019c8a4c-0000-7000-8000-000000000001.jsonl",
      text: codexTurnIds(),
    }),
  "claude-code": () =>
    Promise.resolve({ name: "7acd37a8-0000-4000-8000-000000000001.jsonl", text: claudeBasic() }),
  gemini: () =>
    Promise.resolve({
      name: "session-2026-12-01T10-00-5a7e0c1d.jsonl",
      text: geminiToolSession().text(),
    }),
};

function bytesOf(reads: { path: string; start: number; end: number }[], path: string): number {
  return reads.filter((read) => read.path === path).reduce((n, r) => n + r.end - r.start, 0);
}

for (const adapter of FORMATS) {
  Deno.test(`inspectSession() reads a ${adapter.fileNoun} once: its head, then one read`, async () => {
    const fixture = FIXTURES[adapter.name];
    assert(fixture !== undefined, `no fixture for the adapter ${adapter.name}: add one`);
    await using dir = await tempDir();
    const { name, text } = await fixture();
    const path = join(dir.path, name);
    await Deno.writeTextFile(path, text);
    const size = (await Deno.stat(path)).size;

    // One detection and one read by the adapter, alone.
    using io = countIo();
    const detected = await detectFormat(path);
    assertEquals("reason" in detected ? detected.reason : detected.format, adapter.name);
    const reader = adapter.read(path, size, {});
    while (!(await reader.next()).done);
    const once = bytesOf(io.take().reads, path);
    // Every byte at least once (Gemini's reader reads a message's last copy again by design).
    assert(once >= size, `${once} bytes for a file of ${size}`);

    const report = await inspectSession(path);
    assertEquals(report.session.format, adapter.name);
    const asText = renderReport(report, { color: false });
    const asJson = JSON.stringify(report);
    assert(asText.length > 0 && asJson.length > 0);
    assertEquals(bytesOf(io.take().reads, path), once);

    // Found through its adapter (`inspect --codex <id>`), the file is not detected again.
    const head = await detectFormat(path).then(() => bytesOf(io.take().reads, path));
    await inspectSession(path, { adapter });
    assertEquals(bytesOf(io.take().reads, path), once - head);
  });
}

Deno.test("inspectSession()'s read-once test has a fixture for every format of the registry", () => {
  assertEquals(FORMATS.map((adapter) => adapter.name).filter((name) => !(name in FIXTURES)), []);
});
