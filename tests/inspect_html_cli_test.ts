import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertStrictEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { attributes, EVIL, evilSession, parsePage } from "./_html_helpers.ts";
import { makeStory } from "./_inspect_fixtures.ts";
import { resumeCommand } from "../cli/_commands.ts";
import { renderSessionPage } from "../src/html/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";

const CLI = new URL("../cli/inspect.ts", import.meta.url).pathname;

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI as a user would, in a subprocess, with the inspect task's permissions. */
async function inspect(args: string[]): Promise<Ran> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-write", "--allow-env", CLI, ...args],
    env: { NO_COLOR: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The page the CLI must write: the report with its entries and continue command. */
async function expectedPage(path: string, root?: string): Promise<string> {
  const report = await inspectSession(path, { entries: true, root, commandFor: resumeCommand });
  return renderSessionPage(report);
}

Deno.test("cli: --html FILE writes the whole page, says where on stderr, and leaves no temp file", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const out = join(dir.path, "out");
  await Deno.mkdir(out);
  const file = join(out, "page.html");
  const ran = await inspect([
    "--sessions-dir",
    dir.path,
    story.sessionId.slice(0, 10),
    "--html",
    file,
  ]);
  assertEquals(ran.code, 0, ran.stderr);
  assertStrictEquals(ran.stdout, "");
  const html = await Deno.readTextFile(file);
  assertMatch(
    ran.stderr,
    new RegExp(`^turnlog inspect: wrote ${file} \\(\\d+\\.\\d KiB\\); open it in a browser\\n$`),
  );
  assertStrictEquals(html, await expectedPage(story.path, dir.path));
  const page = parsePage(html);
  assertEquals(attributes(page, "[data-turn]", "data-turn"), ["1", "2", "3"]);
  assertEquals(attributes(page, "[data-synthesized]", "data-output-for"), ["c3"]);
  assertStrictEquals(page.querySelectorAll("script").length, 0);
  assertEquals([...Deno.readDirSync(out)].map((entry) => entry.name), ["page.html"]);

  // Again over the same file: replaced whole.
  const again = await inspect([story.path, "--html", file, "--sessions-dir", dir.path]);
  assertEquals(again.code, 0, again.stderr);
  assertStrictEquals(await Deno.readTextFile(file), html);
});

Deno.test("cli: --html - writes the page to stdout; a damaged session still exits 0 with its orphan marked", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path, { crashOnly: true });
  const ran = await inspect([story.path, "--html", "-"]);
  assertEquals(ran.code, 0, ran.stderr);
  assertMatch(ran.stderr, /^turnlog inspect: wrote the page to stdout \(\d+\.\d KiB\)\n$/);
  assertStrictEquals(ran.stdout, await expectedPage(story.path));
  assertEquals(attributes(parsePage(ran.stdout), "[data-orphan]", "data-call-id"), ["c3"]);
});

Deno.test("cli: --html keeps text from the session as text", async () => {
  await using dir = await tempDir();
  const path = await evilSession(dir.path);
  const ran = await inspect([path, "--html", "-"]);
  assertEquals(ran.code, 0, ran.stderr);
  assert(!ran.stdout.includes("<script>window.__pwned"), "no script from the session");
  assert(ran.stdout.includes("&lt;script&gt;window.__pwned=1&lt;/script&gt;"));
  assertStrictEquals(parsePage(ran.stdout).querySelector("h1")?.textContent, `read this: ${EVIL}`);
});

Deno.test("cli: --html usage errors exit 2 with a clear message", async () => {
  await using dir = await tempDir();
  const story = await makeStory(dir.path);
  const cases: [string[], string][] = [
    [[story.path, "--html"], '--html needs a file name, or "-" for stdout'],
    [["--html", join(dir.path, "x.html")], "--html needs a session: an id, a prefix or a path"],
    [[story.path, "--json", "--html", "x.html"], "--html does not go with --json"],
    [[story.path, "--repair", "--html", "x.html"], "--html does not go with --repair"],
    [
      [story.path, "--html", join(dir.path, "x.jsonl")],
      `Refusing to write the page to ${
        join(dir.path, "x.jsonl")
      }: that is a session file's name; name an .html file`,
    ],
    [
      [story.path, "--html", dir.path],
      `--html ${dir.path} is a folder: name the file, e.g. ${join(dir.path, "session.html")}`,
    ],
  ];
  for (const [args, message] of cases) {
    const ran = await inspect(args);
    assertEquals(
      [ran.code, ran.stdout, ran.stderr],
      [2, "", `turnlog inspect: ${message}\nRun ./denow task inspect --help for the options.\n`],
      args.join(" "),
    );
  }
});
