import { join } from "node:path";
import { codexSearch, typesIn } from "../src/formats/codex/_search.ts";
import type { TurnCounter } from "../src/formats/_search.ts";
import { assert, assertEquals } from "./_assert.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";

/** The counter as it was before its one pass: a search of the whole line for each type. */
function fivePassTurns(): TurnCounter {
  const TASK_STARTED = '"type":"task_started"';
  const TURN_CONTEXT = '"type":"turn_context"';
  const USER_MESSAGE = '"type":"user_message"';
  const TASK_COMPLETE = '"type":"task_complete"';
  const TURN_ABORTED = '"type":"turn_aborted"';
  const TURN_ID = /"turn_id":"([^"]*)"/;
  const WAITING = /"type":"response_item".*"role":"(?:user|developer)"/;
  let turn = 0;
  let open = false;
  let tasks = false;
  let ids = false;
  let current: string | undefined;
  const start = (id: string | undefined) => {
    open = true;
    if (id !== undefined && id === current) return;
    current = id;
    turn++;
  };
  const see = (line: string) => {
    if (line.includes(TASK_STARTED)) {
      tasks = true;
      start(TURN_ID.exec(line)?.[1]);
    } else if (line.includes(TASK_COMPLETE) || line.includes(TURN_ABORTED)) {
      open = false;
    } else if (line.includes(TURN_CONTEXT)) {
      const id = TURN_ID.exec(line)?.[1];
      if (id !== undefined && !tasks) ids = true;
      if (!tasks && id !== undefined) start(id);
    } else if (!tasks && !ids && line.includes(USER_MESSAGE)) {
      start(undefined);
    }
  };
  return {
    markers: [TASK_STARTED, TASK_COMPLETE, TURN_ABORTED, TURN_CONTEXT, USER_MESSAGE],
    turnOf(line) {
      see(line);
      return !open && WAITING.test(line) ? turn + 1 : turn;
    },
  };
}

/** Each line's turn as `counter` tells it. */
const turnsOf = (counter: TurnCounter, lines: string[]) => lines.map((l) => counter.turnOf(l));

Deno.test({
  name:
    "codexSearch.turns() gives every line of the real Codex rollouts the turn the five-pass counter gave it",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    let files = 0;
    let lines = 0;
    let turns = 0;
    for await (const path of corpusFiles(join(CORPUS, "codex"))) {
      if (!path.slice(path.lastIndexOf("/") + 1).startsWith("rollout-")) continue;
      const text = await Deno.readTextFile(path);
      const all = text.split("\n");
      const now = turnsOf(codexSearch.turns(), all);
      assertEquals(now, turnsOf(fivePassTurns(), all), path);
      files++;
      lines += all.length;
      turns += now.at(-1)!;
    }
    // The corpus holds rollouts with turns: the comparison is not of empty lists.
    assertEquals(files, 4);
    assert(lines > 100 && turns > 4, `${lines} lines, ${turns} turns`);
  },
});

Deno.test("codexSearch.turns() gives made-up lines the turn the five-pass counter gave them", () => {
  const lines = [
    '{"type":"session_meta","payload":{"id":"s"}}',
    '{"type":"response_item","payload":{"type":"message","role":"developer","content":[]}}',
    '{"type":"event_msg","payload":{"type":"user_message","message":"hi"}}',
    '{"type":"response_item","payload":{"type":"message","role":"assistant"}}',
    '{"type":"event_msg","payload":{"type":"task_complete"}}',
    '{"type":"response_item","payload":{"type":"message","role":"user"}}',
    '{"type":"turn_context","payload":{"turn_id":"a"}}',
    '{"type":"turn_context","payload":{"turn_id":"a"}}',
    '{"type":"event_msg","payload":{"type":"turn_aborted"}}',
    '{"type":"response_item","payload":{"type":"message","role":"user\u2028"}}',
    '{"type":"response_item","x":"\u2028","payload":{"role":"user"}}',
    '{"type":"event_msg","payload":{"type":"task_started","turn_id":"b"}}',
    '{"type":"event_msg","payload":{"type":"task_started","turn_id":"b"}}',
    '{"type":"event_msg","payload":{"type":"task_started"}}',
    '{"a":{"type":"task_complete"},"b":{"type":"task_started","turn_id":"c"}}',
    '{"text":"\\"type\\":\\"task_started\\""}',
  ];
  const now = turnsOf(codexSearch.turns(), lines);
  assertEquals(now, turnsOf(fivePassTurns(), lines));
  assertEquals(now, [0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 4, 5, 5]);
});

Deno.test("typesIn() finds each counted type a line holds, not escaped ones inside strings", () => {
  assertEquals(typesIn('{"type":"event_msg","payload":{"type":"task_complete"}}'), 2);
  assertEquals(typesIn('{"type":"turn_context","payload":{"type":"user_message"}}'), 8 | 16);
  assertEquals(typesIn('{"type":"event_msg","payload":{"type":"turn_aborted"}}'), 4);
  assertEquals(typesIn('{"text":"\\"type\\":\\"task_started\\""}'), 0);
  assertEquals(typesIn('{"type":"task_startedx"}'), 0);
  // Types that start as a counted one does are told apart by the rest of their name.
  assertEquals(
    typesIn(
      '{"type":"token_count","a":{"type":"reasoning","b":{"type":"user"}},"c":{"type":"turn"}}',
    ),
    0,
  );
  assertEquals(typesIn('{"type":"token_count","a":{"type":"turn_context"}}'), 8);
  assertEquals(typesIn('{"type":"user","a":{"type":"response_item"}}'), 32);
});
