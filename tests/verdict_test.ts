/**
 * One verdict in every view: the text view's header, the exit code, `--json`'s `healthy` and
 * token total, and the page's `data-healthy` and `data-tokens` say the same of a file, over
 * every file of the shared corpus (when it is there) and over files the corpus lacks (a
 * Claude Code parent chain that does not reach its root, a fork's tokens, a Codex call
 * without an output).
 */
import { join, relative } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { parsePage } from "./_html_helpers.ts";
import { CORPUS, CORPUS_MISSING, corpusFiles } from "./_corpus.ts";
import { needing } from "./_needs.ts";
import { inspect, inspectInProcess } from "./_cli.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { InspectReportSchema } from "../src/inspect/schemas.ts";
import { renderSessionPage, SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { claudeCycle, claudeForks } from "../testing/formats/claude_fixtures.ts";
import { codexOrphans } from "../testing/formats/codex_fixtures.ts";

/** What each view says of a file: healthy or not, the problems counted, the token total. */
interface Said {
  healthy: boolean;
  problems: number;
  tokens: number;
}

/** The text view's header verdict, its problems section and its tokens line, read back. */
function fromText(text: string): Said & { words: string } {
  const words = text.split("\n")[0]!.replace(/^Session \S+ {2}/, "");
  const problems = Number(text.match(/\nProblems \((\d+)\)\n/)?.[1] ?? 0);
  const tokens = Number(
    (text.match(/\n {2}tokens {3}([\d,]+) \(/)?.[1] ?? "0").replaceAll(",", ""),
  );
  const healthy = words === "healthy" || words.includes("no conversation");
  return { words, healthy, problems, tokens };
}

/** The page's `#session` attributes and its problems, read back. */
function fromPage(html: string): Said {
  const page = parsePage(html);
  const session = page.querySelector("#session")!;
  const healthy = session.getAttribute("data-healthy");
  assert(healthy === "true" || healthy === "false", `data-healthy="${healthy}"`);
  return {
    healthy: healthy === "true",
    problems: page.querySelectorAll("#findings [data-line][data-kind]").length,
    tokens: Number(session.getAttribute("data-tokens")),
  };
}

/** Every view of the file at `path`, in this process; asserts they agree, returns the verdict. */
async function agreeOn(path: string, name: string): Promise<Said & { words: string }> {
  const text = await inspectInProcess([path]);
  const json = await inspectInProcess(["--json", path]);
  assertEquals([text.stderr, json.stderr], ["", ""], name);
  const report = InspectReportSchema.parse(JSON.parse(json.stdout));
  const fromJson: Said = {
    healthy: report.healthy,
    problems: report.problems.length,
    tokens: report.session.tokens?.total ?? 0,
  };
  assertEquals(report.totals.usage.totalTokens, fromJson.tokens, `${name}: one token total`);
  const said = fromText(text.stdout);
  const { words, ...inText } = said;
  assertEquals(inText, fromJson, `${name}: the text view (${words}) and --json`);
  assertEquals([text.code, json.code], [fromJson.healthy ? 0 : 1, fromJson.healthy ? 0 : 1], name);
  const page = renderSessionPage(await inspectSession(path, SESSION_PAGE_INSPECTION));
  assertEquals(fromPage(page), fromJson, `${name}: the page and --json`);
  return said;
}

Deno.test({
  ...needing(
    "the text view, the exit code, --json and the page agree on every file of the shared corpus",
    CORPUS_MISSING,
  ),
  fn: async () => {
    const verdicts: string[] = [];
    for await (const path of corpusFiles(CORPUS)) {
      const name = relative(CORPUS, path);
      verdicts.push(`${name}: ${(await agreeOn(path, name)).words}`);
    }
    assert(verdicts.length > 40, `only ${verdicts.length} corpus files`);
    // The corpus's one unhealthy file: a Codex call without an output.
    assertEquals(
      verdicts.filter((v) => !/: (healthy|empty file|no conversation)/.test(v)),
      ["codex/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl: 1 orphan call"],
    );
  },
});

Deno.test("a Claude Code chain that does not reach its root: a problem in every view, exit code 1", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "cycle.jsonl");
  await Deno.writeTextFile(path, claudeCycle());
  const said = await agreeOn(path, "cycle");
  assertEquals(said, { words: "1 problem", healthy: false, problems: 1, tokens: 1160 });
  const report = await inspectSession(path);
  assertEquals(report.problems.map((p) => [p.kind, p.line, p.turn, p.message]), [
    ["broken_chain", 3, 2, `${path}:3: Claude Code's check: the parent chain runs in a cycle here`],
  ]);
  assertEquals((await inspect([path])).code, 1);
  assertEquals((await inspect(["--json", path])).code, 1);
});

Deno.test("tokens: one total in every view, a Claude Code fork's and a Codex unfinished turn's included", async () => {
  await using dir = await tempDir();
  const forks = join(dir.path, "forks.jsonl");
  await Deno.writeTextFile(forks, claudeForks());
  assertEquals(await agreeOn(forks, "forks"), {
    words: "1 problem, 1 orphan call",
    healthy: false,
    problems: 1,
    tokens: 4640,
  });
  const orphans = join(dir.path, "rollout.jsonl");
  await Deno.writeTextFile(orphans, codexOrphans());
  assertEquals(await agreeOn(orphans, "orphans"), {
    words: "2 orphan calls",
    healthy: false,
    problems: 0,
    tokens: 909,
  });
});
