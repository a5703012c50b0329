/**
 * The check a reader makes on the way (src/formats/_checked.ts): after a whole read, the
 * inspector's check of the same file gives exactly what a check that reads the file itself
 * gives, on every real file of the shared corpus; a file that changed after its read is read
 * again.
 */
import { join, relative } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { collectSession, type ForeignFormat, validateSessionFile } from "../src/formats/mod.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";

const formatOf = (path: string): ForeignFormat =>
  relative(CORPUS, path).startsWith("codex/") ? "codex" : "claude-code";

Deno.test({
  ...needing(
    "the check after a read is the check of the file, on every corpus file",
    CORPUS_MISSING,
  ),
  fn: async () => {
    let files = 0;
    let found = 0;
    for await (const path of corpusFiles(CORPUS)) {
      const format = formatOf(path);
      // A check that reads the file itself: nothing read before it.
      const fresh = await validateSessionFile(path, format);
      await collectSession(path, format);
      const afterRead = await validateSessionFile(path, format);
      assertEquals(afterRead, fresh, path);
      files++;
      found += fresh.findings.length;
    }
    // The corpus was there, and some file has findings: not only empty lists compared.
    assert(files > 40, `${files} corpus files`);
    assert(found > 0, "no corpus file has a finding");
  },
});

const CALL = {
  timestamp: "2026-02-23T12:00:01.000Z",
  type: "response_item",
  payload: { type: "function_call", call_id: "call_1", name: "shell", arguments: "{}" },
};
const META = {
  timestamp: "2026-02-23T12:00:00.000Z",
  type: "session_meta",
  payload: {
    id: "019c8a4c-0000-7000-8000-000000000009",
    cwd: "/tmp",
    timestamp: "2026-02-23T12:00:00.000Z",
  },
};

Deno.test("a rollout that changed after its read is checked as it is now", async () => {
  await using dir = await tempDir();
  const path = join(
    dir.path,
    "rollout-2026-02-23T12-00-00-019c8a4c-0000-7000-8000-000000000009.jsonl",
  );
  const output = {
    timestamp: "2026-02-23T12:00:02.000Z",
    type: "response_item",
    payload: { type: "function_call_output", call_id: "call_1", output: "ok" },
  };
  await Deno.writeTextFile(
    path,
    [META, CALL, output].map((v) => JSON.stringify(v) + "\n").join(""),
  );
  await collectSession(path, "codex");
  // The output replaced by one for another call, the same size: the call has no output now.
  const other = { ...output, payload: { ...output.payload, call_id: "call_2" } };
  await Deno.writeTextFile(path, [META, CALL, other].map((v) => JSON.stringify(v) + "\n").join(""));
  const changed = await Deno.stat(path);
  await Deno.utime(path, changed.atime!, new Date(changed.mtime!.getTime() + 2000));
  const verdict = await validateSessionFile(path, "codex");
  assertEquals(verdict.findings.map((finding) => finding.kind), [
    "unanswered_call",
    "unexpected_result",
  ]);
});
