/**
 * turnlog used from outside: the workspace member in examples/consumer imports it by its
 * package name, runs a fresh turn and a resumed one, and reads the history back.
 */
import { fileURLToPath } from "node:url";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";

const CONSUMER = fileURLToPath(new URL("../examples/consumer/", import.meta.url));

Deno.test("the consumer project imports @turnlog/turnlog, runs a turn and resumes it", async () => {
  await using dir = await tempDir();
  const ran = await new Deno.Command(Deno.execPath(), {
    args: ["task", "start", dir.path],
    cwd: CONSUMER,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const stderr = new TextDecoder().decode(ran.stderr);
  assertEquals(ran.code, 0, stderr);
  const [first, second, history] = new TextDecoder().decode(ran.stdout).trim().split("\n")
    .map((line) => JSON.parse(line));
  assertEquals([first.resumed, first.outcome], [false, "run_succeeded"]);
  assertEquals([second.sessionId, second.resumed, second.outcome], [
    first.sessionId,
    true,
    "run_succeeded",
  ]);
  assert(second.runId !== first.runId, "a new run id for the second turn");
  assertEquals(
    second.answer,
    "Before this message you asked me 1 thing:\n1. hello from the consumer",
  );
  // system, user, assistant; user, assistant.
  assertEquals(history.historyItems, 5);
});
