/**
 * The shape of the inspector's report as a whole (`inspect --json`): the session's facts, the
 * findings (orphans, synthesized outputs, forks, subagents), the sums, and the document. The
 * parts each turn is made of are in `./_turn_types.ts`.
 *
 * @module
 */
import type { ForkKind, SessionFormat, SessionState, TokenTotals } from "../formats/mod.ts";
import type { ForkedFrom, ImportedFrom, Policy, Usage, WireApi } from "../record/mod.ts";
import type {
  Checkpoint,
  Header,
  InspectProblem,
  LineRef,
  RecordCounts,
  Turn,
} from "./_turn_types.ts";

/** The session as its `session_meta` and file describe it; null where unknown. */
export interface SessionFacts {
  /** The id from `session_meta`, else from the file name, else null. */
  id: string | null;
  /** The file's format: turnlog's own, a Codex CLI rollout, or a Claude Code transcript. */
  format: SessionFormat;
  /**
   * `records` for a conversation; `empty` for an empty file; `metadata-only` for a Claude Code
   * file of titles and file-history lines only. The last two are no problem.
   */
  state: SessionState;
  /** The session file. */
  path: string;
  /** The file's size in bytes. */
  sizeBytes: number;
  /** Valid records (another tool's file: the turnlog records its lines were read into). */
  records: number;
  /** Non-empty lines. */
  lines: number;
  /** A title the file gives the session (Claude Code), or null. */
  title: string | null;
  /** The first prompt a person wrote (not injected context), or null. */
  firstPrompt: string | null;
  /** Every model that answered, in the order they first did. */
  models: string[];
  /** The git branch the session started on (Codex, Claude Code), or null. */
  gitBranch: string | null;
  /** The latest time in the file, or null. */
  updated: string | null;
  /** The version of the tool that wrote the file (Codex, Claude Code), or null. */
  toolVersion: string | null;
  /** The approval policy in the writing tool's own words (`on-request`, `default`), or null. */
  approvalSource: string | null;
  /**
   * Tokens used: another tool's counts (once per model response), else the sum of the
   * `run_finished` usages; null when the file reports none.
   */
  tokens: TokenTotals | null;
  /** Where an imported session came from (its `session_meta.importedFrom`), or null. */
  importedFrom: ImportedFrom | null;
  /**
   * How another tool's file was read, for a person: what marked its turns, where the active
   * branch was walked back from, lines passed over. Empty for a turnlog file.
   */
  notes: string[];
  /** Creation time, ISO 8601, or null. */
  created: string | null;
  /** The workspace folder of the first run, or null. */
  cwd: string | null;
  /** Who served the model, or null. */
  modelProvider: string | null;
  /** The model of the first run, or null. */
  model: string | null;
  /** The wire API of the first run, or null. */
  wireApi: WireApi | null;
  /** The policy of the first run, or null. */
  policy: Policy | null;
  /** The record format's version. */
  formatVersion: number | null;
  /** The session and turn this one was forked from, or null. */
  forkedFrom: ForkedFrom | null;
}

/** An output resume synthesized (and wrote) for a call an earlier run left without one. */
export interface SynthesizedOutput {
  /** Its 1-based line number. */
  line: number;
  /** Its turn, or null for the header. */
  turn: number | null;
  /** The id of the call it answers. */
  callId: string;
  /** The tool that was called. */
  toolName: string;
  /** The call it answers, or null when no call precedes it. */
  call: LineRef | null;
}

/** A call without an output: resume would synthesize one (`--repair --write` appends it). */
export interface OrphanCall {
  /** Its 1-based line number. */
  line: number;
  /** Its turn, or null for the header. */
  turn: number | null;
  /** The call's id. */
  callId: string;
  /** The tool called. */
  name: string;
  /** True when the call is an item of a checkpoint's replacement history at `line`. */
  inCheckpoint: boolean;
}

/** An output resume leaves out of the history: no call before it, or a second output. */
export interface OrphanOutput {
  /** Its 1-based line number. */
  line: number;
  /** Its turn, or null for the header. */
  turn: number | null;
  /** The call id it names. */
  callId: string;
  /** The tool it names. */
  toolName: string;
  /** Why resume drops it. */
  reason: "orphan_output" | "duplicate_output";
  /** True when it is an item of a checkpoint's replacement history. */
  inCheckpoint: boolean;
}

/** A branch of a Claude Code transcript that is not the active one (the conversation). */
export interface InspectFork {
  /** The `uuid` of the branch's first line, else `line-<n>`. */
  id: string;
  /**
   * How it left the conversation: `rewind` (another prompt), `retry` (another answer),
   * `local_command`, `sidechain`, `separate_root`, `other`.
   */
  kind: ForkKind;
  /** The branch's first line. */
  line: number;
  /** The branch's last line. */
  lastLine: number;
  /** The active-branch line it hangs off, or null for a tree of its own. */
  fromLine: number | null;
  /** The turn `fromLine` is in, or null. */
  turn: number | null;
  /** Lines in the branch. */
  lines: number;
  /** User and assistant lines in the branch. */
  messages: number;
  /** What the branch is, in a few words. */
  title: string;
}

/** A subagent's transcript that belongs to the session (Claude Code). */
export interface InspectSubagent {
  /** The agent id its file name carries, else the file's name. */
  id: string;
  /** The subagent transcript's path. */
  path: string;
  /** `sidecar`: an old `agent-*.jsonl` beside the session; `folder`: `<id>/subagents/`. */
  style: "sidecar" | "folder";
  /** The session line that names the agent (the Task tool's result), or null. */
  line: number | null;
  /** The turn that line is in, or null. */
  turn: number | null;
  /** The subagent's first prompt (its task), or null. */
  title: string | null;
}

/** Sums over the whole file. */
export interface Totals {
  /** Turns in the file. */
  turns: number;
  /** Turns without a `run_finished` record. */
  unfinishedTurns: number;
  /** Turns that continued the session. */
  resumedTurns: number;
  /** Records by type over the whole file. */
  counts: RecordCounts;
  /**
   * Token usage: turnlog's file, added up over the `run_finished` records that report it;
   * another tool's file, its counts over the whole file (`session.tokens`, branches and
   * unfinished turns included). One total with `session.tokens` in either case.
   */
  usage: Usage;
  /** What turnlog's model cannot hold, by kind, over the whole file. */
  ignored: Record<string, number>;
}

/** The `inspect --json` document. */
export interface InspectReport {
  /** Always `"turnlog-inspect"`. */
  format: "turnlog-inspect";
  /** The layout's version, {@linkcode INSPECT_REPORT_VERSION}. */
  version: 2;
  /**
   * True when there are no problems and no orphan calls (`isHealthy`): the verdict every
   * view states, and the exit code's.
   */
  healthy: boolean;
  /**
   * The verdict in the words every view says (`healthy`, `1 orphan call`, `no conversation:
   * only the session's metadata lines`): `verdictOf`'s.
   */
  verdict: string;
  /** The session's facts. */
  session: SessionFacts;
  /** The lines before the first turn. */
  header: Header;
  /** Every turn, in file order. */
  turns: Turn[];
  /** Sums over the whole file. */
  totals: Totals;
  /** Outputs resume synthesized earlier. */
  synthesizedOutputs: SynthesizedOutput[];
  /** Calls without an output: resume would synthesize one. */
  orphanCalls: OrphanCall[];
  /** Outputs resume drops. */
  orphanOutputs: OrphanOutput[];
  /** Compaction checkpoints. */
  checkpoints: Checkpoint[];
  /** Branches other than the conversation (Claude Code); empty otherwise. */
  forks: InspectFork[];
  /** Subagent transcripts that belong to the session (Claude Code); empty otherwise. */
  subagents: InspectSubagent[];
  /** Every problem, by line. */
  problems: InspectProblem[];
  /** The shell command that continues the session; null when the file is not in a store. */
  continueCommand: string | null;
  /** The shortest unique id prefix the command uses, or null. */
  continuePrefix: string | null;
}

/** The version of the `--json` document's layout. */
export const INSPECT_REPORT_VERSION = 2;
