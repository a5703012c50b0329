/**
 * Issue 39, items 4 and 9: what a repair and a new session leave on disk. A sidecar holds the
 * bytes a repair took out (tool output, secrets): it takes the mode of the session file it
 * comes from; turnlog's own sessions are the owner's alone, and so are the folders made for
 * them. A refused repair (the tool wrote meanwhile) leaves no sidecar behind, or the one from
 * before unchanged.
 */
import { join } from "node:path";
import { assert, assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { repairForeignFile, repairSession } from "../src/repair/mod.ts";
import {
  createSession,
  FileChangedError,
  quarantinePath,
  quarantineThen,
} from "../src/store/mod.ts";
import { makeRecord } from "../src/record/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { claudeOrphanResult, claudeTornLine } from "../testing/formats/repair_fixtures.ts";

const modeOf = async (path: string) => (await Deno.stat(path)).mode! & 0o777;

async function claudeFile(dir: string, text: string, mode: number): Promise<string> {
  const path = join(dir, `${CLAUDE_SESSION_ID}.jsonl`);
  await Deno.writeTextFile(path, text);
  await Deno.chmod(path, mode);
  return path;
}

Deno.test("quarantineLines() gives the sidecar the session file's mode, not the umask's", async () => {
  for (const mode of [0o600, 0o640]) {
    await using dir = await tempDir();
    const path = await claudeFile(dir.path, claudeOrphanResult().damaged, mode);
    await repairSession(path);
    assertEquals(await modeOf(path), mode, "the session file keeps its mode");
    assertEquals(await modeOf(quarantinePath(path)), mode, "the sidecar takes it");
  }
});

Deno.test("quarantineLines() narrows a sidecar an older repair left readable by everyone", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeTornLine().damaged, 0o600);
  await Deno.writeTextFile(quarantinePath(path), "");
  await Deno.chmod(quarantinePath(path), 0o644);
  await repairSession(path);
  assertEquals(await modeOf(quarantinePath(path)), 0o600);
});

Deno.test("quarantineLines() on turnlog's own session: the sidecar is 0600 like the session", async () => {
  await using dir = await tempDir();
  const { writer, location } = await createSession(dir.path, {
    cwd: "/w",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  });
  writer.close();
  await Deno.writeTextFile(location.path, '{"torn', { append: true });
  await repairSession(location.path);
  assertEquals(await modeOf(location.path), 0o600);
  assertEquals(await modeOf(quarantinePath(location.path)), 0o600);
});

Deno.test("createSession() writes a 0600 file in folders it makes 0700", async () => {
  await using dir = await tempDir();
  const root = join(dir.path, "data", "turnlog", "sessions");
  const { writer, location } = await createSession(root, {
    cwd: "/w",
    modelProvider: "embedded",
    model: "scripted",
    wireApi: "responses",
    policy: { approval: "auto" },
  });
  await writer.append([makeRecord("response_item", {
    type: "message",
    role: "user",
    content: "a secret",
  })]);
  writer.close();
  assertEquals(await modeOf(location.path), 0o600);
  const folders: string[] = [];
  for (let at = join(location.path, ".."); at !== dir.path; at = join(at, "..")) folders.push(at);
  assertEquals(folders.length, 6, "YYYY/MM/DD, sessions, turnlog, data");
  for (const folder of folders) assertEquals(await modeOf(folder), 0o700, folder);
});

Deno.test("repairForeignFile() refused because the tool appended after the sidecar was written: no sidecar", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeOrphanResult().damaged, 0o600);
  const appended = '{"type":"queue-operation"}\n';
  await assertRejects(
    () =>
      repairForeignFile(path, "claude-code", {
        afterSidecar: async () => {
          assert(await Deno.stat(quarantinePath(path)), "the sidecar is written first");
          await Deno.writeTextFile(path, appended, { append: true });
        },
      }),
    FileChangedError,
  );
  assertEquals(await Deno.readTextFile(path), claudeOrphanResult().damaged + appended);
  const names = [...Deno.readDirSync(dir.path)].map((entry) => entry.name);
  assertEquals(names, [`${CLAUDE_SESSION_ID}.jsonl`], "no sidecar, no temp file");
});

Deno.test("repairForeignFile() refused: a sidecar from an earlier repair is left byte for byte", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeTornLine().damaged, 0o600);
  await repairSession(path);
  const before = await Deno.readFile(quarantinePath(path));
  assert(before.length > 0);
  // The tool writes on, and tears its last line again; a repair now races its next append.
  await Deno.writeTextFile(path, '{"type":"user","torn', { append: true });
  await assertRejects(
    () =>
      repairForeignFile(path, "claude-code", {
        afterSidecar: () => Deno.writeTextFile(path, 'more"}\n', { append: true }),
      }),
    FileChangedError,
  );
  assertEquals(await Deno.readFile(quarantinePath(path)), before);
});

Deno.test("repairForeignFile() with a tool appending every few milliseconds: each refusal leaves the sidecar as it was", async () => {
  await using dir = await tempDir();
  const path = await claudeFile(dir.path, claudeOrphanResult().damaged, 0o600);
  let writing = true;
  let n = 0;
  const tool = (async () => {
    while (writing) {
      await Deno.writeTextFile(path, `{"type":"queue-operation","n":${++n}}\n`, { append: true });
      await new Promise((done) => setTimeout(done, 1));
    }
  })();
  let refused = 0;
  try {
    for (let attempt = 0; attempt < 10; attempt++) {
      const before = await Deno.readFile(quarantinePath(path)).catch(() => null);
      try {
        await repairForeignFile(path, "claude-code");
      } catch (error) {
        if (!(error instanceof FileChangedError)) throw error;
        refused++;
        const after = await Deno.readFile(quarantinePath(path)).catch(() => null);
        assertEquals(after, before, `attempt ${attempt}: the sidecar is as it was`);
      }
      if (await Deno.stat(quarantinePath(path)).then(() => true, () => false)) break;
    }
  } finally {
    writing = false;
    await tool;
  }
  assert(refused > 0, "the appender raced at least one repair");
});

Deno.test("quarantineThen() keeps the sidecar when the commit renamed the file and then failed", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  await Deno.writeTextFile(path, '{}\n{"a');
  const line = { line: 2, kind: "torn_tail", start: 3, bytes: new TextEncoder().encode('{"a') };
  await assertRejects(
    () =>
      quarantineThen(path, [line], async () => {
        await Deno.writeTextFile(`${path}.new`, "{}\n");
        await Deno.rename(`${path}.new`, path);
        throw new Error("Failed after the rename");
      }),
    Error,
    "Failed after the rename",
  );
  assertEquals((await Deno.readTextFile(quarantinePath(path))).endsWith('{"a\n'), true);
});
