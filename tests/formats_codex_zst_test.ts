/**
 * Codex rollouts compressed with zstd (`.jsonl.zst`, what Codex writes with its rollout
 * compression on), compressed here by hand with `node:zlib`: listed, found by id, detected,
 * read, checked, inspected and searched like the plain rollout they hold; their bytes open
 * decompressed (`openSessionBytes`, for the archive); repaired as the plain one is, and
 * written compressed.
 */
import { join } from "node:path";
import { zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { collectSession, detectFormat, validateSessionFile } from "../src/formats/mod.ts";
import { adapterFor } from "../src/formats/mod.ts";
import { inspectSession } from "../src/inspect/mod.ts";
import { openSessionBytes } from "../src/io/mod.ts";
import { type SearchEvent, searchSessions } from "../src/search/mod.ts";
import { repairSession } from "../src/repair/mod.ts";
import { quarantinePath } from "../src/store/mod.ts";
import {
  PAGINATED_ID,
  paginatedClean,
  paginatedKilled,
} from "../testing/formats/codex_paginated.ts";

const NAME = `rollout-2026-12-01T20-07-41-${PAGINATED_ID}.jsonl`;

/** The clean rollout written plain in one home and compressed in another. */
async function homes(dir: string): Promise<{ plain: string; packed: string; root: string }> {
  const text = paginatedClean().text();
  const plainDay = join(dir, "plain", "sessions", "2026", "12", "01");
  const root = join(dir, "packed", "sessions");
  const packedDay = join(root, "2026", "12", "01");
  await Deno.mkdir(plainDay, { recursive: true });
  await Deno.mkdir(packedDay, { recursive: true });
  const plain = join(plainDay, NAME);
  const packed = join(packedDay, `${NAME}.zst`);
  await Deno.writeTextFile(plain, text);
  await Deno.writeFile(packed, zstdCompressSync(new TextEncoder().encode(text)));
  return { plain, packed, root };
}

Deno.test("codexAdapter lists, finds and detects a .jsonl.zst rollout, and reads it as the plain one", async () => {
  await using dir = await tempDir();
  const { plain, packed, root } = await homes(dir.path);
  const codex = adapterFor("codex");
  const listed = await codex.list(root, {});
  assertEquals(listed.sessions.map((s) => [s.id, s.path, s.preview]), [
    [PAGINATED_ID, packed, "run `echo hi`"],
  ]);
  assertEquals((await codex.find(root, PAGINATED_ID.slice(0, 13))).path, packed);
  assertEquals((await detectFormat(packed) as { format: string }).format, "codex");
  const a = await collectSession(plain, "codex");
  const b = await collectSession(packed, "codex");
  assertEquals(b.entries, a.entries);
  assertEquals(
    { ...b.facts, path: "", sizeBytes: 0 },
    { ...a.facts, path: "", sizeBytes: 0 },
  );
  assertEquals(b.facts.sizeBytes, (await Deno.stat(packed)).size, "its size on disk");
  assertEquals(await validateSessionFile(packed, "codex"), {
    format: "codex",
    path: packed,
    valid: true,
    findings: [],
  });
  const report = await inspectSession(packed);
  assertEquals([report.healthy, report.turns.length], [true, 1]);
  const bytes = new Uint8Array(await new Response(await openSessionBytes(packed)).arrayBuffer());
  assertEquals(bytes, await Deno.readFile(plain), "its bytes open decompressed");
});

Deno.test("searchSessions() finds a word in a .jsonl.zst rollout at its line", async () => {
  await using dir = await tempDir();
  const { packed, root } = await homes(dir.path);
  const events: SearchEvent[] = [];
  const sources = [{ format: "codex", root, flags: [] }];
  for await (const event of searchSessions({ terms: ["printed"] }, { sources })) {
    events.push(event);
  }
  const hits = events.flatMap((event) =>
    event.kind === "session" ? event.hits.map((hit) => `${event.session.path}:${hit.line}`) : []
  );
  assertEquals(hits, [`${packed}:15`]);
});

Deno.test("repairSession() of a .jsonl.zst rollout writes it compressed, as the repair of the plain one", async () => {
  await using dir = await tempDir();
  const text = paginatedKilled().text();
  const plain = join(dir.path, "plain", NAME);
  const packed = join(dir.path, "packed", `${NAME}.zst`);
  await Deno.mkdir(join(dir.path, "plain"));
  await Deno.mkdir(join(dir.path, "packed"));
  await Deno.writeTextFile(plain, text);
  await Deno.writeFile(packed, zstdCompressSync(new TextEncoder().encode(text)));
  assertEquals((await inspectSession(packed)).healthy, false);
  await repairSession(plain);
  const { after } = await repairSession(packed);
  assertEquals(after.healthy, true);
  const unpacked = zstdDecompressSync(await Deno.readFile(packed));
  assertEquals(new TextDecoder().decode(unpacked), await Deno.readTextFile(plain));
  const sidecar = await Deno.readFile(quarantinePath(packed)).catch(() => new Uint8Array());
  assertEquals(sidecar, await Deno.readFile(quarantinePath(plain)).catch(() => new Uint8Array()));
  const file = await Deno.readFile(packed);
  await repairSession(packed);
  assertEquals(await Deno.readFile(packed), file, "a second repair changes nothing");
});
