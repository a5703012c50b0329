import { join } from "node:path";
import { claudeCodeSearch } from "../src/formats/claude_code/_search.ts";
import type { TurnCounter } from "../src/formats/_search.ts";
import { assert, assertEquals } from "./_assert.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";

/** The counter as it was before it skipped passes: every pattern searched on every line. */
function everyPassTurns(): TurnCounter {
  const USER = '"type":"user"';
  const ASSISTANT = '"type":"assistant"';
  const NOT_PROMPT = /"tool_result"|"isMeta":true|"isCompactSummary":true/;
  const COMMAND_TEXT =
    /"content":"\s*(?:<|Caveat: |\[Request interrupted)|"text":"\[Request interrupted/;
  const TURN_END = /"type":"assistant"|"subtype":"turn_duration"|\[Request interrupted/;
  let turn = 0;
  let open = false;
  return {
    markers: [],
    turnOf(line) {
      const conversation = line.includes(USER) || line.includes(ASSISTANT);
      const prompt = line.includes(USER) && !NOT_PROMPT.test(line) && !COMMAND_TEXT.test(line);
      if ((turn === 0 && conversation) || (prompt && !open)) {
        turn++;
        open = true;
      }
      const current = turn;
      if (TURN_END.test(line)) open = false;
      return current;
    },
  };
}

/** Each line's turn as `counter` tells it. */
const turnsOf = (counter: TurnCounter, lines: string[]) => lines.map((l) => counter.turnOf(l));

Deno.test({
  name:
    "claudeCodeSearch.turns() gives every line of the real Claude Code transcripts the turn the every-pass counter gave it",
  ignore: CORPUS_MISSING !== undefined,
  fn: async () => {
    let files = 0;
    let lines = 0;
    let turns = 0;
    for await (const path of corpusFiles(join(CORPUS, "claude"))) {
      const all = (await Deno.readTextFile(path)).split("\n");
      const now = turnsOf(claudeCodeSearch.turns(), all);
      assertEquals(now, turnsOf(everyPassTurns(), all), path);
      files++;
      lines += all.length;
      turns += now.at(-1) ?? 0;
    }
    // The corpus holds transcripts with turns: the comparison is not of empty lists.
    assert(
      files >= 40 && lines > 1000 && turns > 50,
      `${files} files, ${lines} lines, ${turns} turns`,
    );
  },
});

Deno.test("claudeCodeSearch.turns() gives made-up lines the turn the every-pass counter gave them", () => {
  const lines = [
    '{"type":"summary","summary":"s"}',
    '{"type":"user","message":{"content":"<command-name>/clear</command-name>"}}',
    '{"type":"user","message":{"content":"first"}}',
    '{"type":"assistant","message":{"content":[]}}',
    '{"type":"user","message":{"content":[{"type":"tool_result"}]}}',
    '{"type":"assistant","message":{"content":[]}}',
    '{"type":"user","isMeta":true,"message":{"content":"meta"}}',
    '{"type":"user","message":{"content":"second"}}',
    '{"type":"user","message":{"content":"still the second: no answer yet"}}',
    '{"type":"user","message":{"content":[{"type":"text","text":"[Request interrupted by user]"}]}}',
    '{"type":"user","message":{"content":"third"}}',
    '{"type":"system","subtype":"turn_duration"}',
    '{"type":"user","message":{"content":"Caveat: a local command"}}',
    '{"type":"user","isCompactSummary":true,"message":{"content":"summary"}}',
    '{"type":"user","message":{"content":"fourth"}}',
    "not json",
  ];
  const now = turnsOf(claudeCodeSearch.turns(), lines);
  assertEquals(now, turnsOf(everyPassTurns(), lines));
  assertEquals(now, [0, 1, 1, 1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4]);
});
