import { join } from "node:path";
import { assert, assertEquals, assertMatch, assertRejects } from "./_assert.ts";
import {
  OUTPUT_LIMIT,
  ToolCancelledError,
  ToolSet,
  truncateOutput,
  WORKSPACE_TOOLS,
} from "../src/tools/mod.ts";

async function workspace(files: Record<string, string> = {}) {
  const base = await Deno.makeTempDir({ prefix: "turnlog-tools-test-" });
  const root = join(base, "ws");
  await Deno.mkdir(root);
  for (const [name, content] of Object.entries(files)) {
    await Deno.mkdir(join(root, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, name), content);
  }
  const tools = await ToolSet.open(root);
  const signal = new AbortController().signal;
  return {
    base,
    root,
    tools,
    run: (name: string, args: unknown) =>
      tools.run(
        { name, arguments: typeof args === "string" ? args : JSON.stringify(args) },
        signal,
      ),
    [Symbol.asyncDispose]: () => Deno.remove(base, { recursive: true }),
  };
}

Deno.test("the tool definitions carry JSON schemas without $schema", () => {
  const names = WORKSPACE_TOOLS.map((tool) => tool.name);
  assertEquals(names, ["list_dir", "read_file", "search_text", "write_file", "slow_task"]);
  const search = WORKSPACE_TOOLS.find((tool) => tool.name === "search_text")!;
  assertEquals(search.parameters.required, ["pattern"]);
  assert(!("$schema" in search.parameters));
  assertEquals(WORKSPACE_TOOLS.filter((tool) => tool.changes).map((t) => t.name), ["write_file"]);
});

Deno.test("list_dir, read_file and search_text read the workspace", async () => {
  await using ws = await workspace({
    "b.txt": "alpha\nbeta gamma\n",
    "sub/c.md": "gamma ray\n",
    ".git/x": "gamma hidden",
  });
  assertEquals(await ws.run("list_dir", { path: "." }), {
    output: ".git/\nb.txt\nsub/",
    isError: false,
  });
  assertEquals(await ws.run("read_file", { path: "sub/c.md" }), {
    output: "gamma ray\n",
    isError: false,
  });
  assertEquals(await ws.run("search_text", { pattern: "gamma" }), {
    output: "b.txt:2: beta gamma\nsub/c.md:1: gamma ray",
    isError: false,
  });
  assertEquals((await ws.run("search_text", { pattern: "zeta" })).output, 'No matches for "zeta"');
  assertEquals(await ws.run("read_file", { path: "missing.txt" }), {
    output: 'Error: Not found: "missing.txt" does not exist in the workspace',
    isError: true,
  });
});

Deno.test("paths outside the workspace are refused, lexically and through symlinks", async () => {
  await using ws = await workspace({ "in.txt": "in" });
  const outside = join(ws.base, "outside.txt");
  await Deno.writeTextFile(outside, "secret");
  for (const path of ["../outside.txt", outside, "sub/../../outside.txt"]) {
    const result = await ws.run("read_file", { path });
    assertEquals(result, {
      output: `Error: Path ${
        JSON.stringify(path)
      } is outside the workspace ${ws.root}; only paths inside it can be used`,
      isError: true,
    });
  }
  await Deno.symlink(outside, join(ws.root, "link.txt"));
  await Deno.symlink(ws.base, join(ws.root, "linkdir"));
  const viaLink = await ws.run("read_file", { path: "link.txt" });
  assertEquals(viaLink.isError, true);
  assertMatch(
    viaLink.output,
    /^Error: Path "link.txt" leads outside the workspace .* through a symlink/,
  );
  const write = await ws.run("write_file", { path: "linkdir/new.txt", content: "x" });
  assertEquals(write.isError, true);
  assertMatch(write.output, /through a symlink/);
  assertEquals(await Deno.readTextFile(outside), "secret");
  await assertRejects(() => Deno.stat(join(ws.base, "new.txt")), Deno.errors.NotFound);
  // A search does not follow symlinks out of the workspace.
  assertEquals(
    (await ws.run("search_text", { pattern: "secret" })).output,
    'No matches for "secret"',
  );
});

Deno.test("write_file creates folders and says whether it replaced a file", async () => {
  await using ws = await workspace();
  assertEquals(await ws.run("write_file", { path: "a/b/c.txt", content: "héllo" }), {
    output: "Wrote 6 bytes to a/b/c.txt (created)",
    isError: false,
  });
  assertEquals(
    (await ws.run("write_file", { path: "a/b/c.txt", content: "" })).output,
    "Wrote 0 bytes to a/b/c.txt (replaced)",
  );
  assertEquals(await Deno.readTextFile(join(ws.root, "a/b/c.txt")), "");
});

Deno.test("bad arguments and unknown tools become error outputs", async () => {
  await using ws = await workspace();
  const notJson = await ws.run("read_file", '{"path": ');
  assertEquals(notJson.isError, true);
  assertMatch(notJson.output, /^Error: The arguments of read_file are not valid JSON \(/);
  assertEquals(await ws.run("read_file", { file: "x" }), {
    output:
      "Error: Invalid arguments for read_file: path: Invalid input: expected string, received undefined",
    isError: true,
  });
  assertEquals(await ws.run("rm_rf", {}), {
    output:
      'Error: Unknown tool "rm_rf"; the tools are list_dir, read_file, search_text, write_file, slow_task',
    isError: true,
  });
});

Deno.test("large outputs are truncated with a note", async () => {
  await using ws = await workspace({ "big.txt": "x".repeat(OUTPUT_LIMIT * 2) });
  const result = await ws.run("read_file", { path: "big.txt" });
  assertEquals(result.isError, false);
  assertEquals(
    result.output.slice(OUTPUT_LIMIT - 2),
    "xx\n[output truncated: showing the first 16384 characters of a 32768-byte file]",
  );
  assert(result.output.startsWith("x".repeat(OUTPUT_LIMIT)), "the first 16 KiB are kept");
  assertEquals(
    truncateOutput("abcdef", 3),
    "abc\n[output truncated: showing the first 3 of 6 characters]",
  );
});

Deno.test("slow_task finishes, and an abort cancels it", async () => {
  await using ws = await workspace();
  assertEquals(await ws.run("slow_task", { seconds: 0, label: "build" }), {
    output: 'slow_task "build" finished after 0 seconds',
    isError: false,
  });
  const controller = new AbortController();
  const running = ws.tools.run(
    { name: "slow_task", arguments: '{"seconds":60}' },
    controller.signal,
  );
  controller.abort();
  await assertRejects(() => running, ToolCancelledError);
});
