import fc from "fast-check";
import assert from "node:assert/strict";
import type { ListedForeignSession } from "../src/formats/mod.ts";
import { renderForeignListing } from "../src/inspect/_render_listing.ts";
import { byOwnDates, catalogListing, type CatalogSession } from "../src/catalog/mod.ts";

function listed(id: string): ListedForeignSession {
  return {
    format: "claude-code",
    id,
    path: `/p/${id}.jsonl`,
    created: null,
    modified: null,
    sizeBytes: 0,
    project: null,
    preview: "hi",
    title: null,
    cwd: "/w",
    gitBranch: null,
    model: null,
  };
}

/** The definition: from 8 characters, longer until no other listed id starts the same. */
function naivePrefix(id: string, ids: readonly string[]): string {
  let length = Math.min(8, id.length);
  while (length < id.length && ids.some((o) => o !== id && o.startsWith(id.slice(0, length)))) {
    length++;
  }
  return id.slice(0, length);
}

// Ids that share long prefixes, are prefixes of each other, short ones, repeated ones.
const id = fc.array(fc.constantFrom("7acd37a8-", "0000", "a", "b", "-"), {
  minLength: 1,
  maxLength: 8,
}).map((parts) => parts.join(""));

Deno.test("renderForeignListing() shows each id's shortest prefix no other listed id shares, 8 characters at least", () => {
  fc.assert(
    fc.property(fc.array(id, { minLength: 1, maxLength: 12 }), (ids) => {
      const text = renderForeignListing(
        { format: "claude-code", root: "/p", sessions: ids.map(listed), more: false },
        { color: false },
      );
      const shown = text.split("\n").slice(2, 2 + ids.length).map((line) => line.split(" ")[0]);
      assert.deepEqual(shown, ids.map((one) => naivePrefix(one, ids)));
    }),
    { numRuns: 1000 },
  );
});

function session(path: string, lastAt: string | null, modified: number): CatalogSession {
  return {
    path,
    lastAt,
    firstAt: null,
    modified,
    fileModified: modified + 1,
    models: [],
    unreadable: null,
  } as unknown as CatalogSession;
}

Deno.test("catalogListing() orders sessions as byOwnDates does", () => {
  const dates = ["2026-01-02T00:00:00Z", "2026-01-01T00:00:00Z", "not a date", null];
  fc.assert(
    fc.property(
      fc.array(
        fc.tuple(fc.constantFrom("a", "b", "c"), fc.constantFrom(...dates), fc.nat(3)),
        { maxLength: 10 },
      ),
      (rows) => {
        const sessions = rows.map(([path, at, modified]) => session(path, at, modified));
        const listing = catalogListing("claude-code", "/p", sessions, 1000);
        assert.deepEqual(
          listing.sessions.map((s) => [s.path, s.lastAt, Date.parse(s.modified!) - 1]),
          [...sessions].sort(byOwnDates).map((s) => [s.path, s.lastAt, s.modified]),
        );
      },
    ),
    { numRuns: 1000 },
  );
});
