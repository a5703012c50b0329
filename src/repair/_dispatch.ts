/**
 * The one dispatch of a repair plan: turnlog's own file is planned from its inspection,
 * another tool's from the file itself, by its adapter.
 *
 * @module
 */
import { adapterOfData, type SessionAdapter } from "../formats/mod.ts";
import type { InspectReport } from "../inspect/mod.ts";
import { planForeignFileRepair } from "./_foreign.ts";
import type { RepairPlan } from "./_plan.ts";
import { planTurnlogFileRepair } from "./_turnlog.ts";

/**
 * Works out what a repair of the inspected file would do. turnlog's own file:
 * {@linkcode planTurnlogFileRepair} (its bad lines looked at again, glued records split back).
 * Another tool's file is planned from the file itself (its adapter's check and repair plan,
 * in `src/formats`). Reads only. The adapter is the one the command that found the file hands
 * on; absent, the one the report's format names.
 *
 * @example
 * ```ts ignore
 * const plan = await planFileRepair(await inspectSession(path));
 * console.log(plan.moved.length, plan.appended.length);
 * ```
 */
export async function planFileRepair(
  report: InspectReport,
  options: { adapter?: SessionAdapter | undefined } = {},
): Promise<RepairPlan> {
  const adapter = options.adapter ?? adapterOfData(report.session);
  return adapter.own
    ? await planTurnlogFileRepair(report)
    : await planForeignFileRepair(report.session.path, adapter.name);
}
