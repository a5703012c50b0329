/**
 * The shape of the inspector's report as a whole (`inspect --json`): the session's facts, the
 * findings (orphans, synthesized outputs, forks, subagents), the sums, and the document. The
 * parts each turn is made of are in `./_turn_types.ts`. Each is inferred from its zod schema
 * (`./schemas.ts`, where the fields are described), imported type-only.
 *
 * @module
 */
import type { z } from "zod";
import type * as S from "./schemas.ts";

/** The session as its `session_meta` and file describe it; null where unknown. */
export type SessionFacts = z.output<typeof S.SessionFactsSchema>;

/** An output resume synthesized (and wrote) for a call an earlier run left without one. */
export type SynthesizedOutput = z.output<typeof S.SynthesizedOutputSchema>;

/** A call without an output: resume would synthesize one (`--repair --write` appends it). */
export type OrphanCall = z.output<typeof S.OrphanCallSchema>;

/** An output resume leaves out of the history: no call before it, or a second output. */
export type OrphanOutput = z.output<typeof S.OrphanOutputSchema>;

/** A branch of a Claude Code transcript that is not the active one (the conversation). */
export type InspectFork = z.output<typeof S.InspectForkSchema>;

/** A subagent's transcript that belongs to the session (Claude Code). */
export type InspectSubagent = z.output<typeof S.InspectSubagentSchema>;

/** Sums over the whole file. */
export type Totals = z.output<typeof S.TotalsSchema>;

/** The `inspect --json` document. */
export type InspectReport = z.output<typeof S.InspectReportSchema>;

/** The version of the `--json` document's layout. */
export const INSPECT_REPORT_VERSION = 2;
