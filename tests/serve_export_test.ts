/**
 * The session page's "Continue in…" (`POST /sessions/<id>/export`): from serve's own origin it
 * writes the export into the target tool's home and answers what `export --json` prints; from
 * another origin, or as anything but JSON, it is refused and nothing is written. The page offers
 * one button per tool that writes its format.
 */
import { join } from "node:path";
import { assert, assertEquals, assertMatch } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { readConversation } from "../src/export/mod.ts";
import { browseHomes, continueTargets, createSessionBrowserHandler } from "../src/server/mod.ts";
import { CLAUDE_SESSION_ID } from "../testing/formats/claude_builder.ts";
import { writeClaudeHome } from "../testing/formats/homes.ts";

/** Every file under `dir` (none when it was never made). */
async function filesUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      if (entry.isDirectory) await walk(join(at, entry.name));
      else found.push(join(at, entry.name));
    }
  };
  await walk(dir).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return found.sort();
}

/** A browser handler over a Claude Code home, exporting into a Codex home of its own. */
async function setUp(dir: string) {
  const claude = await writeClaudeHome(join(dir, ".claude"));
  const codexHome = join(dir, "codex-home");
  const env = {
    get: (name: string) => name === "HOME" ? dir : name === "CODEX_HOME" ? codexHome : undefined,
  };
  const handler = createSessionBrowserHandler({
    sessionsDir: join(dir, "sessions"),
    homes: browseHomes(env, ["claude"]),
    env,
  });
  return { claude, codexHome, handler };
}

const URL_OF = `http://127.0.0.1:8787/sessions/${CLAUDE_SESSION_ID}/export`;

Deno.test("createSessionBrowserHandler() POST /sessions/<id>/export writes the session into the target's home and answers what export --json prints", async () => {
  await using dir = await tempDir();
  const { claude, codexHome, handler } = await setUp(dir.path);
  const before = await Deno.readFile(claude.session);
  const response = await handler(
    new Request(URL_OF, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        origin: "http://127.0.0.1:8787",
        "sec-fetch-site": "same-origin",
      },
      body: JSON.stringify({ to: "codex" }),
    }),
  );
  assertEquals(response.status, 200);
  const body = await response.json();
  assertEquals(Object.keys(body), [
    "target",
    "id",
    "path",
    "cwd",
    "resume",
    "carried",
    "degraded",
  ]);
  assertEquals(body.target, "codex");
  assertEquals(body.resume, `codex resume ${body.id}`);
  assertEquals(await filesUnder(codexHome), [body.path]);
  assertMatch(body.path, /\/sessions\/\d{4}\/\d\d\/\d\d\/rollout-[\dT-]+-[\da-f-]+\.jsonl$/);
  // The export carries the source's conversation, item for item; the source is unchanged.
  const strip = (items: { item: unknown }[]) => items.map(({ item }) => item);
  const source = strip((await readConversation(claude.session)).items);
  const written = strip((await readConversation(body.path)).items);
  assertEquals(written, source);
  assertEquals(await Deno.readFile(claude.session), before);
});

Deno.test("createSessionBrowserHandler() refuses an export from another origin or not as JSON, and writes nothing", async () => {
  await using dir = await tempDir();
  const { codexHome, handler } = await setUp(dir.path);
  const attempts: [string, Record<string, string>, string][] = [
    [
      "another origin",
      { "content-type": "application/json", origin: "http://evil.test" },
      `Origin "http://evil.test" is not http://127.0.0.1:8787`,
    ],
    [
      "a cross-site fetch",
      { "content-type": "application/json", "sec-fetch-site": "cross-site" },
      `Sec-Fetch-Site is "cross-site"`,
    ],
    [
      "a form's text/plain",
      { "content-type": "text/plain" },
      `Content-Type "text/plain": serve takes requests that change state only as application/json`,
    ],
  ];
  for (const [what, headers, said] of attempts) {
    const response = await handler(
      new Request(URL_OF, { method: "POST", headers, body: JSON.stringify({ to: "codex" }) }),
    );
    assertEquals(response.status, 403, what);
    assert((await response.text()).includes(said.replaceAll('"', "&quot;")), what);
  }
  assertEquals(await filesUnder(codexHome), [], "nothing written");
});

Deno.test("createSessionBrowserHandler() answers an export it cannot make in JSON: an unknown target, no such session", async () => {
  await using dir = await tempDir();
  const { codexHome, handler } = await setUp(dir.path);
  const post = (url: string, body: unknown) =>
    handler(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
  const unknown = await post(URL_OF, { to: "vim" });
  assertEquals(unknown.status, 400);
  assertEquals(await unknown.json(), {
    error: `Unknown target "vim": a session continues in ${
      continueTargets().map((t) => t.to).join(", ")
    }`,
  });
  const none = await post(URL_OF, {});
  assertEquals(none.status, 400);
  assertMatch((await none.json()).error, /^Invalid body: /);
  const missing = await post("http://127.0.0.1:8787/sessions/0000dead/export", { to: "codex" });
  assertEquals(missing.status, 404);
  assertEquals(await missing.json(), { error: `No session with id or prefix "0000dead" here` });
  assertEquals(await filesUnder(codexHome), []);
});

Deno.test("createSessionBrowserHandler() offers Continue in on a session's page: a button per tool that writes its format", async () => {
  await using dir = await tempDir();
  const { handler } = await setUp(dir.path);
  const response = await handler(
    new Request(`http://127.0.0.1:8787/sessions/${CLAUDE_SESSION_ID}`),
  );
  assertEquals(response.status, 200);
  const html = await response.text();
  const buttons = [...html.matchAll(/<button type="button" data-to="([^"]+)">([^<]+)<\/button>/g)]
    .map((match) => ({ to: match[1], tool: match[2] }));
  assertEquals(buttons, [
    { to: "codex", tool: "Codex" },
    { to: "claude", tool: "Claude Code" },
    { to: "gemini", tool: "Gemini" },
  ]);
  assertEquals(buttons, continueTargets());
  assert(html.includes(`<script data-url="/sessions/${CLAUDE_SESSION_ID}/export">`));
});
