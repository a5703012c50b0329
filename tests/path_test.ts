import fc from "fast-check";
import assert from "node:assert/strict";
import * as nodePath from "node:path";
import * as nodeUrl from "node:url";
import { basename, dirname, fileURLToPath, join, relative, resolve, sep } from "../src/_path.ts";

// Paths made of the pieces that decide every branch: roots, doubled and trailing slashes,
// `.` and `..` (alone and inside names), dots in names.
const PIECES = ["/", "//", "a", "b", ".", "..", "...", ".a", "a.", "c.jsonl", " ", "é"];
const path = fc.array(fc.constantFrom(...PIECES), { maxLength: 8 }).map((parts) => parts.join(""));
const RUNS = { numRuns: 2000 };

Deno.test("join() equals node:path's for every path", () => {
  fc.assert(
    fc.property(fc.array(path, { maxLength: 4 }), (parts) => {
      assert.equal(join(...parts), nodePath.join(...parts));
    }),
    RUNS,
  );
});

Deno.test("resolve() equals node:path's for every path, the current folder included", () => {
  fc.assert(
    fc.property(fc.array(path, { maxLength: 4 }), (parts) => {
      assert.equal(resolve(...parts), nodePath.resolve(...parts));
    }),
    RUNS,
  );
});

Deno.test("dirname() and basename() equal node:path's for every path", () => {
  fc.assert(
    fc.property(path, (p) => {
      assert.equal(dirname(p), nodePath.dirname(p));
      assert.equal(basename(p), nodePath.basename(p));
    }),
    RUNS,
  );
});

Deno.test("relative() equals node:path's for every pair of paths", () => {
  fc.assert(
    fc.property(path, path, (from, to) => {
      assert.equal(relative(from, to), nodePath.relative(from, to));
    }),
    RUNS,
  );
});

Deno.test("sep is node:path's", () => {
  assert.equal(sep, nodePath.sep);
});

Deno.test("fileURLToPath() equals node:url's, its refusals included", () => {
  const urls = [
    "file:///a/b",
    "file:///a%20b/c%C3%A9/",
    "file://localhost/a",
    "file:///a%2Fb",
    "file:///a%2fb",
    "file://host/a",
    "https://x.example/a",
    "file:///",
  ];
  for (const url of urls) {
    let ours: string | Error;
    let theirs: string | Error;
    try {
      ours = fileURLToPath(url);
    } catch (error) {
      ours = error as Error;
    }
    try {
      theirs = nodeUrl.fileURLToPath(url);
    } catch (error) {
      theirs = error as Error;
    }
    if (typeof theirs === "string") assert.equal(ours, theirs, url);
    else assert.ok(ours instanceof TypeError, `${url}: ${String(ours)}`);
  }
  assert.equal(fileURLToPath(new URL("file:///x/y%23z")), nodeUrl.fileURLToPath("file:///x/y%23z"));
});
