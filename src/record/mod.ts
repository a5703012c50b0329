/**
 * The session file's record format: the records, their ids, making them, and the parsing of
 * one line into a record or a problem. (The zod schemas that validate the lines are in
 * `./schemas.ts`, inside turnlog.)
 *
 * @module
 */
export * from "./_types.ts";
export * from "./_make.ts";
export * from "./_ids.ts";
export * from "./_clock.ts";
export * from "./_parse.ts";
export * from "./_issues.ts";
