/**
 * Plain tests for the bugs the property tests (tests/properties_test.ts) found, each the
 * smallest file that showed it.
 *
 * @module
 */
import { assertEquals, assertRejects } from "./_assert.ts";
import { assistant, call, itemRecords, output, RUN_BASE, tempDir } from "./_helpers.ts";
import { makeStory } from "./_inspect_fixtures.ts";
import { collectRecords } from "../src/history/mod.ts";
import { isEmptyPlan, repairSession } from "../src/repair/mod.ts";
import { SessionFileError } from "../src/record/mod.ts";
import { initializeSessionForRun, resumeSession } from "../src/resume/mod.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The crashed story (its last line the orphan call c3) without its final newline. */
async function unterminatedCrash(root: string): Promise<{ path: string; sessionId: string }> {
  const story = await makeStory(root, { crashOnly: true });
  const bytes = await Deno.readFile(story.path);
  await Deno.writeFile(story.path, bytes.subarray(0, bytes.length - 1));
  return story;
}

for (const corrupt of [false, true]) {
  const how = corrupt ? "rewriting the file" : "appending only";
  Deno.test(`repairSession (${how}) puts the outputs for a last call without its newline on lines of their own`, async () => {
    await using dir = await tempDir();
    const { path, sessionId } = await unterminatedCrash(dir.path);
    if (corrupt) {
      // A bad line in the middle makes repair rewrite the file before it appends.
      const lines = decoder.decode(await Deno.readFile(path)).split("\n");
      lines.splice(3, 0, '{"timestamp":"x","type":"respo');
      await Deno.writeFile(path, encoder.encode(lines.join("\n")));
    }
    const before = decoder.decode(await Deno.readFile(path));
    const lastCall = before.slice(before.lastIndexOf("\n") + 1);

    const { plan } = await repairSession(path, { root: dir.path });
    assertEquals(plan.appended.map((a) => a.callId), ["c3"]);
    const after = decoder.decode(await Deno.readFile(path));
    const lines = after.split("\n");
    assertEquals(lines.includes(lastCall), true, "the call keeps a line of its own");
    assertEquals((await collectRecords(path)).problems, []);
    assertEquals(isEmptyPlan((await repairSession(path, { root: dir.path })).plan), true);
    assertEquals((await resumeSession(sessionId, { root: dir.path })).synthesizedItems, []);
  });
}

/**
 * A fresh session: meta, turn_context, system, user (line 4), call c1 (5), its output (6), an
 * assistant message (7), with line `glue` and the next one glued together.
 */
async function gluedSession(root: string, glue: number): Promise<{ path: string; id: string }> {
  const session = await initializeSessionForRun({ ...RUN_BASE, root, message: "read a.txt" });
  await session.writer.append(
    itemRecords([call("c1"), output("c1", "read_file", "alpha"), assistant("done")]),
  );
  session.writer.close();
  const path = session.location.path;
  const lines = (await Deno.readTextFile(path)).split("\n");
  lines.splice(glue - 1, 2, lines[glue - 1]! + lines[glue]!);
  await Deno.writeTextFile(path, lines.join("\n"));
  return { path, id: session.sessionId };
}

for (const [glue, what] of [[4, "a call"], [6, "an output"]] as const) {
  Deno.test(`repairSession pairs ${what} it splits back out of a glued line with the rest of the file`, async () => {
    await using dir = await tempDir();
    const { path, id } = await gluedSession(dir.path, glue);

    const { plan } = await repairSession(path, { root: dir.path });
    assertEquals(plan.moved.map((m) => [m.line, m.kind, m.split?.length]), [[
      glue,
      "malformed_json",
      2,
    ]]);
    assertEquals(plan.appended, []);
    const resumed = await resumeSession(id, { root: dir.path });
    assertEquals(resumed.synthesizedItems, []);
    assertEquals(resumed.droppedItems, []);
    assertEquals(
      resumed.history.filter((item) => item.type === "function_call_output").map((item) =>
        item.type === "function_call_output" && item.output
      ),
      ["alpha"],
    );
    assertEquals(isEmptyPlan((await repairSession(path, { root: dir.path })).plan), true);
  });
}

Deno.test("repairSession does not split records back in before the session_meta", async () => {
  await using dir = await tempDir();
  const { path, id } = await gluedSession(dir.path, 2);
  // Line 1 is now the glued turn_context and system message, line 2 the session_meta.
  const lines = (await Deno.readTextFile(path)).split("\n");
  [lines[0], lines[1]] = [lines[1]!, lines[0]!];
  await Deno.writeTextFile(path, lines.join("\n"));

  const { plan } = await repairSession(path, { root: dir.path });
  assertEquals(plan.moved.map((m) => [m.line, m.kind, m.split]), [[1, "malformed_json", null]]);
  const resumed = await resumeSession(id, { root: dir.path });
  assertEquals(resumed.meta.id, id);
  assertEquals(resumed.problems, []);
  assertEquals(isEmptyPlan((await repairSession(path, { root: dir.path })).plan), true);
});

Deno.test("repairSession leaves a file refused when the session_meta it splits back names another session", async () => {
  await using dir = await tempDir();
  const { path, id } = await gluedSession(dir.path, 1);
  // Line 1 is the glued session_meta and turn_context; its session_meta now names another id.
  const text = await Deno.readTextFile(path);
  const other = `f${id.slice(1)}`;
  const newline = text.indexOf("\n");
  await Deno.writeTextFile(path, text.slice(0, newline).replace(id, other) + text.slice(newline));
  const before = await Deno.readFile(path);

  const { plan } = await repairSession(path, { root: dir.path });
  assertEquals(plan.refused !== null, true);
  assertEquals(await Deno.readFile(path), before);
  await assertRejects(() => resumeSession(id, { root: dir.path }), SessionFileError);
});
