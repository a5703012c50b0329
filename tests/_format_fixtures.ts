/**
 * One session of every other tool's format, by adapter name, for the adapter contract suite
 * and the tests that loop over the registry: each written where its tool keeps it (under a
 * folder standing for `HOME`), with an independent oracle for search.
 */
import { join } from "node:path";
import type { FormatFixture } from "./_format_contract.ts";
import { matchingLines } from "./_search_oracle.ts";
import { CODEX_SESSION_ID } from "../testing/formats/codex_builder.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { claudeBasic } from "../testing/formats/claude_fixtures.ts";
import { GEMINI_SESSION_ID, geminiToolSession } from "../testing/formats/gemini_builder.ts";

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

type Value = Record<string, unknown>;
const isValue = (v: unknown): v is Value =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Every string inside a value. */
const stringsOf = (v: unknown): string[] =>
  typeof v === "string"
    ? [v]
    : Array.isArray(v)
    ? v.flatMap(stringsOf)
    : isValue(v)
    ? Object.values(v).flatMap(stringsOf)
    : [];

/** A message's text parts (a string, or parts with `text`). */
const textsOf = (content: unknown): string[] =>
  typeof content === "string"
    ? [content]
    : Array.isArray(content)
    ? content.flatMap((part) => (isValue(part) && typeof part.text === "string" ? [part.text] : []))
    : [];

/**
 * A Gemini CLI message's conversation, read independently: a user's prompt (not injected
 * context or a slash command), the model's text, its calls' arguments and their results (a
 * user's function responses repeat them and are left out).
 */
function geminiTexts(message: Value): string[] {
  if (message.type === "user") {
    const texts = textsOf(message.content).filter((t) =>
      !/^(<session_context>|<hook_context>|\/)/.test(t)
    );
    return texts;
  }
  if (message.type !== "gemini") return [];
  const calls = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isValue) : [];
  return [
    ...textsOf(message.content),
    ...calls.flatMap((call) => [...stringsOf(call.args), ...stringsOf(call.result)]),
  ];
}

/** Gemini CLI's conversation, read independently: the lines whose messages hold every term. */
async function geminiOracle(path: string, terms: string[]): Promise<number[]> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const found: number[] = [];
  lines.forEach((raw, index) => {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    if (!isValue(value)) return;
    const set = isValue(value.$set) && Array.isArray(value.$set.messages)
      ? value.$set.messages
      : [];
    const messages = typeof value.id === "string" ? [value] : set.filter(isValue);
    const text = messages.flatMap(geminiTexts).join("\n").toLowerCase();
    if (terms.every((term) => text.includes(term.toLowerCase()))) found.push(index + 1);
  });
  return found;
}

/**
 * The fixture of every other tool's format, by adapter name: what the contract suite and the
 * cross-cutting tests lay out for each adapter of the registry (a format without one fails
 * the contract suite).
 */
export const FIXTURES: Record<string, FormatFixture> = {
  codex: {
    async write(dir) {
      const root = join(dir, ".codex", "sessions");
      const path = join(
        root,
        "2026/02/23",
        `rollout-2026-02-23T12-00-00-${CODEX_SESSION_ID}.jsonl`,
      );
      await write(path, codexTurnIds());
      return { root, path, id: CODEX_SESSION_ID };
    },
    oracle: (path, terms) => matchingLines(path, "codex", terms),
  },
  "claude-code": {
    async write(dir) {
      const root = join(dir, ".claude", "projects");
      const path = join(root, "-work-project", `${CLAUDE_SESSION_ID}.jsonl`);
      await write(path, claudeBasic());
      return { root, path, id: CLAUDE_SESSION_ID };
    },
    oracle: (path, terms) => matchingLines(path, "claude-code", terms),
  },
  gemini: {
    async write(dir) {
      const root = join(dir, ".gemini", "tmp");
      await write(join(root, "proj", ".project_root"), "/work/proj\n");
      const path = join(root, "proj", "chats", "session-2026-12-01T10-00-5a7e0c1d.jsonl");
      await write(path, geminiToolSession().text());
      return { root, path, id: GEMINI_SESSION_ID };
    },
    oracle: geminiOracle,
  },
};
