/**
 * The one dispatch of a repair plan: turnlog's own file is planned from its inspection,
 * another tool's from the file itself, by its adapter.
 *
 * @module
 */
import { adapterOf } from "../formats/mod.ts";
import type { InspectReport } from "../inspect/mod.ts";
import { planForeignFileRepair } from "./_foreign.ts";
import type { RepairPlan } from "./_plan.ts";
import { planTurnlogFileRepair } from "./_turnlog.ts";

/**
 * Works out what a repair of the inspected file would do. turnlog's own file:
 * {@linkcode planTurnlogFileRepair} (its bad lines looked at again, glued records split back).
 * Another tool's file is planned from the file itself (its adapter's check and repair plan,
 * in `src/formats`). Reads only.
 *
 * @example
 * ```ts ignore
 * const plan = await planFileRepair(await inspectSession(path));
 * console.log(plan.moved.length, plan.appended.length);
 * ```
 */
export async function planFileRepair(report: InspectReport): Promise<RepairPlan> {
  const { format, path } = report.session;
  return adapterOf(format).own
    ? await planTurnlogFileRepair(report)
    : await planForeignFileRepair(path, format);
}
