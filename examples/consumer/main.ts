/**
 * A project beside turnlog that uses it as a library (a Deno workspace member): it starts a
 * session with one turn, continues it with a second, and prints what each turn did as a JSON
 * line. With no arguments it works in a temp folder on the embedded model.
 *
 * @module
 */
import { connectModel, resumeSession, type RunEvent, runTurn } from "@turnlog/turnlog";

async function turn(
  message: string,
  options: { sessionId?: string; dir: string },
): Promise<RunEvent[]> {
  await using connection = await connectModel({ model: "scripted" });
  return await Array.fromAsync(runTurn({
    message,
    connection,
    sessionId: options.sessionId,
    sessionsDir: options.dir,
    workspace: options.dir,
    policy: { approval: "auto" },
  }));
}

function summary(events: RunEvent[]) {
  const started = events.find((event) => event.type === "run_started");
  const last = events.at(-1);
  return {
    sessionId: started?.type === "run_started" ? started.sessionId : null,
    runId: started?.type === "run_started" ? started.runId : null,
    resumed: started?.type === "run_started" ? started.resumed : null,
    outcome: last?.type ?? null,
    answer: last?.type === "run_succeeded" ? last.answer : null,
  };
}

const dir = Deno.args[0] ?? await Deno.makeTempDir({ prefix: "turnlog-consumer-" });
const first = summary(await turn("hello from the consumer", { dir }));
console.log(JSON.stringify(first));
const second = summary(await turn("what did I ask so far?", { sessionId: first.sessionId!, dir }));
console.log(JSON.stringify(second));
const resumed = await resumeSession(first.sessionId!, { root: dir });
console.log(JSON.stringify({ historyItems: resumed.history.length }));
if (Deno.args[0] === undefined) await Deno.remove(dir, { recursive: true });
