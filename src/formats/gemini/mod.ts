/**
 * Gemini CLI sessions: read into turnlog records and turns as Gemini's own replay reads them,
 * and found where Gemini keeps them. {@linkcode geminiAdapter} is the format as the rest of
 * turnlog sees it (the registry lists it); the reader and the finders it wraps stay exported
 * for the library's users.
 *
 * @module
 */
export * from "./_adapter.ts";
export { readGeminiSession } from "./_reader.ts";
export { findGeminiSession, listGeminiSessions, previewGeminiSession } from "./_find.ts";
export * from "./_facts.ts";
export * from "./_writer.ts";
// The check's replay, for tests of what it holds.
export { CheckReplay } from "./_check.ts";
