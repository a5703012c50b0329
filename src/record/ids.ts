/**
 * The records' ids and clock alone (`mod.ts` adds the records' types, making them and parsing
 * a line): the face a walk of sessions' names imports, so a command answered from the catalog
 * loads no record checks.
 *
 * @module
 */
export * from "./_ids.ts";
export * from "./_clock.ts";
