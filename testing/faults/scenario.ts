/**
 * The turns the fault-injection suite kills: a fixed sequence of turns on the embedded model
 * (tool calls in a block, a tool that runs, compaction when asked), with every commit point
 * numbered as it happens. The same code enumerates the points in the suite's own process and
 * runs the turns in the child that kills itself at one of them.
 *
 * @module
 */
import type { WireApi } from "../../src/record/mod.ts";
import {
  type Compactor,
  connectModel,
  createCompactor,
  type RunEvent,
  runTurn,
} from "../../src/runtime/mod.ts";
import type { CommitDetail, CommitPoint } from "../../src/store/mod.ts";
import { ToolSet, Workspace, WORKSPACE_TOOLS } from "../../src/tools/mod.ts";

/** Where the embedded model listens. */
export interface ModelAddress {
  baseURL: string;
  apiKey: string;
  model: string;
}

/** What a scenario runs: turns on one session, in order. */
export interface ScenarioSpec {
  /** Sessions root. */
  sessionsDir: string;
  /** The tools' workspace. */
  workspace: string;
  /** The embedded model. */
  model: ModelAddress;
  /** The wire API of a new session (a continued one keeps its own). */
  wireApi: WireApi;
  /** Compact at or above this many tokens; null: no compaction. */
  compactThreshold: number | null;
  /** The user messages, one turn each. */
  messages: string[];
  /** Continue this session; absent: the first turn starts a new one. */
  sessionId?: string | undefined;
}

/** A moment a scenario can be killed at: an append (a commit point) or a tool running. */
export type SlotPoint = CommitPoint | "tool_running";

/** One numbered moment of a scenario. */
export interface Slot {
  /** Its number in the scenario, from 0. */
  index: number;
  /** What happens there. */
  point: SlotPoint;
  /** The turn it belongs to, from 0. */
  turn: number;
}

/** Called at each slot: before and after an append, or once as a tool starts. */
export type SlotListener = (
  slot: Slot,
  phase: "before" | "after" | "during",
  detail: CommitDetail | undefined,
) => void | Promise<void>;

/** The files the scenario's workspace holds (one with multi-byte characters). */
export const WORKSPACE_FILES: Readonly<Record<string, string>> = {
  "notes.txt": "Grüße aus Köln — naïve café ☕ notes\nsecond line\n",
  "todo.txt": "1. fix the parser\n2. write the tests\n",
};

/** The turns the suite kills: a block of two calls, one call, a block of two calls again. */
export const SCENARIO_MESSAGES: readonly string[] = [
  "read notes.txt and todo.txt",
  "list the files",
  "read todo.txt and notes.txt",
];

/**
 * The scenario's compactor: a low threshold and a small user budget, and compaction at the
 * start of a turn only from the third turn on, so the second turn compacts after a round (with
 * its own calls kept) and the third at its start: both kinds of checkpoint get killed at.
 */
function scenarioCompactor(threshold: number | null, turn: () => number): Compactor | undefined {
  if (threshold === null) return undefined;
  const compactor = createCompactor({ threshold, userBudgetTokens: 1 });
  return (context) =>
    context.when === "turn_start" && turn() < 2 ? Promise.resolve(undefined) : compactor(context);
}

/** Writes {@linkcode WORKSPACE_FILES} into `dir`. */
export async function writeWorkspace(dir: string): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(WORKSPACE_FILES)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
}

/**
 * Runs the scenario's turns, calling `listener` at every slot. Returns each turn's events;
 * a turn that does not succeed throws (the scenario must run whole when nothing kills it).
 */
export async function runScenario(
  spec: ScenarioSpec,
  listener: SlotListener,
): Promise<RunEvent[][]> {
  let next = 0;
  let turnIndex = 0;
  let open: Slot | undefined;
  const onCommit = async (point: CommitPoint, detail: CommitDetail) => {
    if (detail.phase === "before") open = { index: next++, point, turn: turnIndex };
    await listener(open!, detail.phase, detail);
  };
  const workspace = await Workspace.open(spec.workspace);
  const tools = new ToolSet(
    workspace,
    WORKSPACE_TOOLS.map((tool) => ({
      ...tool,
      run: async (args, context) => {
        await listener(
          { index: next++, point: "tool_running", turn: turnIndex },
          "during",
          undefined,
        );
        return await tool.run(args, context);
      },
    })),
  );
  await using connection = await connectModel(spec.model);
  const compactor = scenarioCompactor(spec.compactThreshold, () => turnIndex);
  let sessionId = spec.sessionId;
  const turns: RunEvent[][] = [];
  for (const message of spec.messages) {
    const events = await Array.fromAsync(runTurn({
      message,
      connection,
      sessionsDir: spec.sessionsDir,
      sessionId,
      tools,
      compactor,
      onCommit,
      ...(sessionId === undefined ? { wireApi: spec.wireApi } : {}),
    }));
    const last = events.at(-1);
    if (last?.type !== "run_succeeded") {
      throw new Error(`Scenario turn ${turnIndex} did not succeed: ${JSON.stringify(last)}`);
    }
    const started = events[0];
    if (started?.type === "run_started") sessionId = started.sessionId;
    turns.push(events);
    turnIndex++;
  }
  return turns;
}
