/**
 * The inspector's report types in one place: the turns and their entries
 * (`./_turn_types.ts`), and the report around them (`./_report_types.ts`).
 *
 * @module
 */
export * from "./_turn_types.ts";
export * from "./_report_types.ts";
