/**
 * The session file's record format: the records, their ids, and the parsing of one line into a
 * record or a problem.
 *
 * @module
 */
export * from "./_schemas.ts";
export * from "./_ids.ts";
export * from "./_parse.ts";
export * from "./_issues.ts";
