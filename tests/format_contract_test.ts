/**
 * The adapter contract (`_format_contract.ts`) for every other tool's format of the registry,
 * each with its fixture; an adapter without one fails.
 */
import { join } from "node:path";
import { assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { checkFormatContract, type FormatFixture } from "./_format_contract.ts";
import { matchingLines } from "./_search_oracle.ts";
import { ADAPTERS } from "../src/formats/mod.ts";
import { CODEX_SESSION_ID } from "../testing/formats/codex_builder.ts";
import { codexTurnIds } from "../testing/formats/codex_fixtures.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { claudeBasic } from "../testing/formats/claude_fixtures.ts";
import { GEMINI_SESSION_ID, geminiToolSession } from "../testing/formats/gemini_builder.ts";

async function write(path: string, text: string): Promise<void> {
  await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Gemini CLI's conversation, read independently: a message's texts, by line. */
async function geminiOracle(path: string, terms: string[]): Promise<number[]> {
  const lines = (await Deno.readTextFile(path)).split("\n");
  const found: number[] = [];
  lines.forEach((raw, index) => {
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw);
    } catch {
      return;
    }
    if (typeof value.id !== "string" || !("content" in value)) return;
    const text = JSON.stringify(value.content).toLowerCase();
    if (terms.every((term) => text.includes(term.toLowerCase()))) found.push(index + 1);
  });
  return found;
}

const FIXTURES: Record<string, FormatFixture> = {
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

for (const adapter of ADAPTERS) {
  Deno.test(`checkFormatContract() holds for ${adapter.tool}`, async () => {
    await using dir = await tempDir();
    const cases = await checkFormatContract(adapter, FIXTURES, dir.path);
    assertEquals(cases > 0, true);
  });
}

Deno.test("checkFormatContract() fails an adapter without fixtures", async () => {
  await using dir = await tempDir();
  const adapter = ADAPTERS[0];
  const { [adapter.name]: _left, ...without } = FIXTURES;
  await assertRejects(
    () => checkFormatContract(adapter, without, dir.path),
    Error,
    `The adapter ${adapter.name} has no fixture in the contract suite`,
  );
});
