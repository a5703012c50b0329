/**
 * What a format adapter is: everything turnlog knows about one other tool's session files, in
 * one object its folder's face exports and the registry lists. Nothing outside the format
 * folders asks which format a file is in; it asks the file's adapter.
 *
 * @module
 */
import type { FileUsage } from "./_usage.ts";
import type {
  Env,
  ForeignListing,
  FoundSession,
  ListedForeignSession,
  ListOptions,
} from "./_find.ts";
import type { ForeignRepair, ValidationFinding } from "./_repair_types.ts";
import type { ForeignEntry, ForeignFacts, ToolEdit } from "./_types.ts";
import type { FormatSearch } from "./_search.ts";
import type { ResponseItem } from "../record/mod.ts";
import type { Relocation } from "./_relocate.ts";
import type { LineRules } from "./_view.ts";
import type { FormatFollower } from "./_follow.ts";
import type { FormatResume } from "./_resume.ts";
import type { ExportConversation, WriteOptions, WrittenSession } from "./_writer.ts";
import type { LineObserver } from "./_line.ts";

/** Options of reading a session file (see `readForeignSession`). */
export interface ReadSessionOptions {
  /** Look for the session's subagent transcripts beside it (Claude Code). @default {true} */
  subagents?: boolean;
  /**
   * Make the format's check on the way, returned with the facts (`ForeignFacts.checked`), so
   * an inspector reads the file once: false for a reader that will not ask for one (a resume,
   * an import).
   * @default {true}
   */
  check?: boolean;
  /**
   * Told of each line of the file the reader parses in its one pass, in order (not the lines
   * of other files it reads, a fork's history or subagents): for work that wants the same
   * lines (the catalog's text index), so the file is read and parsed once.
   */
  onLine?: LineObserver | undefined;
  /**
   * Keep each response's usage as columns (`ForeignFacts.usageColumns`) instead of an object
   * per response (`usage`), for a reader that wants the cost alone (the inspector): a 1 GB
   * rollout's responses take a third of the memory. A format whose reader keeps no columns
   * gives `usage` as always.
   * @default {false}
   */
  compactUsage?: boolean | undefined;
}

/** What one line of a file's head says about its format. */
export interface LineVerdict {
  /**
   * True when the line is the tool's but holds no conversation (Claude Code's title and
   * file-history lines): a file of such lines only is `metadata-only`.
   */
  metadata: boolean;
  /** What told it, in a few words: `a Codex session_meta line`. */
  evidence: string;
}

/** Where the tool keeps its sessions, and which variables say so. */
export interface FormatHome {
  /** Every variable {@linkcode FormatHome.root} reads, in order (`CODEX_HOME`, `HOME`). */
  variables: readonly string[];
  /** The sessions root the environment names (`$CODEX_HOME/sessions`, else `~/.codex/sessions`). */
  root(env: Env): string;
  /** The folder of the tool's home that holds the sessions root (`sessions`, `projects`). */
  inside: string;
  /** The root for `--help`, in words: `$CODEX_HOME/sessions, else ~/.codex/sessions`. */
  described: string;
}

/** A tool's words, flag and home: the part of its adapter that names it to a person. */
export type ToolWords<Name extends string = string> = Pick<
  FormatAdapter<Name>,
  "own" | "name" | "tool" | "shortTool" | "fileNoun" | "flag" | "home"
>;

/**
 * A tool's words, flag and home, what its listing leaves out, and its search profile loaded when
 * asked: what a listing of a home answered from the catalog needs of a format (a listing of one
 * home loads no other's profile; `src/formats/_tool_starts.ts` lists them; each format's
 * `_home.ts` makes its own).
 */
export interface ToolStart<Name extends string = string> extends ToolWords<Name> {
  /**
   * Whether its listing (`list`) shows a session the walk found, by its id and its file's size;
   * absent: every one.
   */
  readonly listed?: ((id: string, sizeBytes: number) => boolean) | undefined;
  /** Its search profile (`ToolHome.search`), its module loaded now. */
  loadSearch(): Promise<FormatSearch>;
  /**
   * Its walk (`ToolHome.search.walk`), loaded now with no more than it needs: a listing from
   * the catalog walks the home and reads no line.
   */
  loadWalk(): Promise<FormatSearch["walk"]>;
}

/**
 * A tool's start with its search profile (the walk of its sessions from names alone, the
 * conversation a line holds): what a command that answers from the catalog needs of a format,
 * without its reader (`src/formats/homes.ts` lists them).
 */
export interface ToolHome<Name extends string = string> extends ToolStart<Name> {
  /** How `search` and the catalog walk its sessions and read their lines (its adapter's). */
  readonly search: FormatSearch;
}

/** How long the tool keeps its sessions before its own cleanup deletes them. */
export interface FormatRetention {
  /** Days after a session's last write that the cleanup deletes it. */
  days: number;
  /** Where that comes from, for a person: `cleanupPeriodDays in ~/.claude/settings.json`. */
  source: string;
}

/** How a listing of the tool's sessions shows them. */
export interface FormatListing {
  /** The time column: when a session was `created` (Codex names carry it) or last `modified`. */
  time: "created" | "modified";
}

/**
 * One other tool's session format: its names, how its files are told apart, read, found,
 * listed, checked and repaired, and the words a person reads about them. An adapter's folder
 * under `src/formats/` exports it from its `mod.ts`; `src/formats/registry.ts` lists it.
 */
export interface FormatAdapter<Name extends string = string> {
  /** False (or absent): another tool's format; only turnlog's own adapter says true. */
  readonly own?: false;
  /** The format's name in reports and records (`codex`, `claude-code`): lowercase, `-`. */
  readonly name: Name;
  /** The tool, for people: `Codex CLI`, `Claude Code`. */
  readonly tool: string;
  /** The tool in a sentence: `Codex` ("Codex's check passes"), `Claude Code`. */
  readonly shortTool: string;
  /** One session file, for people: `Codex CLI rollout`, `Claude Code transcript`. */
  readonly fileNoun: string;
  /** The command-line flag that names the tool's home, without dashes: `codex`, `claude`. */
  readonly flag: string;
  /** Where the tool keeps its sessions. */
  readonly home: FormatHome;
  /** How listings of its sessions look. */
  readonly listing: FormatListing;
  /** What its repair and its check count as one line of the format (see `readView`). */
  readonly lines: LineRules;
  /** How `search` walks its sessions and reads their conversation (`src/formats/_search.ts`). */
  readonly search: FormatSearch;

  /** Detection: what a parsed line of a file's head says, or undefined when it is not the tool's. */
  judgeLine(value: Record<string, unknown>): LineVerdict | undefined;
  /** Detection of an empty file: whether its path is named like one of the tool's files. */
  namesFile(path: string): boolean;
  /** Whether a folder is a sessions root of the tool, from names alone. */
  claimsRoot(dir: string): Promise<boolean>;
  /** The session id a file's name gives (for a file that names none inside), or null. */
  idFromName(path: string): string | null;

  /**
   * Reads the file into turnlog records with their lines, streaming, up to `sizeBytes`; the
   * generator's return value is the file's facts. Import reads through this too. It yields
   * entries one at a time, or in order a batch at a time (an array it no longer touches): a
   * step of an async generator costs more than most entries' own work.
   */
  read(
    path: string,
    sizeBytes: number,
    options: ReadSessionOptions,
  ): AsyncGenerator<ForeignEntry | ForeignEntry[], ForeignFacts>;
  /**
   * The tokens of each model response the file holds, as the tool counts them, with its own
   * cost where it wrote one (`src/formats/_usage.ts`); streaming, only the lines that can
   * carry usage parsed.
   */
  usage(path: string): Promise<FileUsage>;
  /** The price table's provider of the tool's models (`anthropic`, `openai`, `google`). */
  readonly priceProvider: string;
  /** Finds a session of a root by id or unique prefix, from names alone. */
  find(root: string, idOrPrefix: string): Promise<FoundSession>;
  /** Lists a root's newest sessions, each with a preview from its head. */
  list(root: string, options: ListOptions): Promise<ForeignListing>;
  /** A found session's preview from its head. */
  preview(session: FoundSession): Promise<ListedForeignSession>;
  /** How the file was read, as notes for a person (from the facts only this format has). */
  notes(facts: ForeignFacts): string[];

  /** What the tool's API (or its reader) would refuse in the file, by line, up to `sizeBytes`. */
  check(path: string, sizeBytes: number): Promise<ValidationFinding[]>;
  /** The repair of the file as it is now, in the tool's own shapes. Reads only. */
  planRepair(path: string, sizeBytes: number): Promise<ForeignRepair>;
  /**
   * The file changes a tool call of the tool asks for (`Edit`, `apply_patch`), from its name
   * and its input (the call's arguments as turnlog holds them), for a page to show as a diff.
   * Null: not an edit, or an input that does not read as one (it is shown as it is). A format
   * whose tools edit no files leaves it out.
   */
  edits?(name: string, input: string): ToolEdit[] | null;
  /**
   * How long the tool keeps the sessions of the home whose sessions root is `root` before its
   * own cleanup deletes them (Claude Code's `cleanupPeriodDays`); a format whose tool deletes
   * nothing leaves it out.
   */
  retention?(root: string): Promise<FormatRetention>;
  /**
   * The base instructions the tool sent first in every request, when its files keep them
   * (Codex's `session_meta`): import carries them over as the first system message.
   */
  instructions?(path: string): Promise<string | null>;
  /**
   * A follower of the file at `path` (see `FormatFollower`): a live page's refresh reads only
   * what its tool appended. A format without one (or a file it does not follow: undefined) is
   * read whole on each change.
   */
  follow?(path: string): FormatFollower | undefined;
  /**
   * The line rules by which the catalog continues a grown file's facts from its last turn and
   * the lines appended (see `FormatResume`); a format without them is read whole when it grows.
   */
  resume?: FormatResume | undefined;
  /**
   * Whether a history item is the tool's own bookkeeping that no person asked the model
   * (Claude Code's local commands, their output and caveat): import leaves it out.
   */
  localOnly?(item: ResponseItem): boolean;
  /**
   * The output the tool's own resume sends for a call its file left without one (Codex:
   * `aborted`), when it writes none into the file: an export carries that text, as the tool's
   * resume would have sent it. Absent: turnlog's synthesized output.
   */
  readonly interruptedOutput?: string;
  /**
   * The tool passes over a line that is not JSON when it resumes a session (its real-client
   * suite resumes one with such a line in the middle): a session whose only findings are such
   * lines resumes as it is (`doctor` says so). Absent: not known to.
   */
  readonly passesOverBadLines?: boolean;
  /**
   * Writes a conversation (another session's, as its resume would send it) as a NEW session
   * file of the tool, laid out in its home as the tool lays it out, whole or not at all, never
   * over a file (`src/formats/_writer.ts`; `export --to <tool>` calls it). A format turnlog
   * only reads leaves it out.
   */
  write?(conversation: ExportConversation, options: WriteOptions): Promise<WrittenSession>;
  /**
   * How a session follows its project into another folder (`restore --cwd`): where its file
   * goes and which fields of a line name the folder. A format that cannot be moved leaves it
   * out.
   */
  readonly relocate?: Relocation;
}
