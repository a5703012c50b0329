/**
 * `doctor`: one look over every home the format adapters know, for what needs the user
 * (sessions their tool would not resume, formats drifting, sessions about to be cleaned up),
 * and the disk each home uses.
 *
 * @module
 */
export * from "./_doctor.ts";
export * from "./_render.ts";
