/**
 * Paths as `node:path` makes them (and file URLs as `node:url` reads them), without loading
 * Deno's Node modules: the first of `node:path`, `node:util` or `node:url` a process imports
 * evaluates about 55 of them (their errors, `inspect`, buffers, assertions), 15 ms of CPU and
 * 10 of wall time at every start, where a whole warm listing from the catalog is 100 ms. On a
 * POSIX system these are `node:path`'s POSIX functions, results equal for every input (a
 * property test holds them to it); on Windows they are `node:path`'s and `node:url`'s own,
 * loaded then.
 *
 * @module
 */
import { late } from "./_late.ts";

interface Paths {
  sep: string;
  join(...parts: string[]): string;
  resolve(...parts: string[]): string;
  dirname(path: string): string;
  basename(path: string): string;
  relative(from: string, to: string): string;
  fileURLToPath(url: string | URL): string;
}

/** A path's segments with `.` and `..` resolved (`..` kept above the start when `above`). */
function normalizeSegments(path: string, above: boolean): string {
  const kept: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") kept.push(segment);
    else if (kept.length > 0 && kept.at(-1) !== "..") kept.pop();
    else if (above) kept.push("..");
  }
  return kept.join("/");
}

function posixNormalize(path: string): string {
  if (path === "") return ".";
  const absolute = path.startsWith("/");
  const trailing = path.endsWith("/");
  let normal = normalizeSegments(path, !absolute);
  if (normal === "") return absolute ? "/" : trailing ? "./" : ".";
  if (trailing) normal += "/";
  return absolute ? `/${normal}` : normal;
}

function posixResolve(...parts: string[]): string {
  let resolved = "";
  let absolute = false;
  for (let i = parts.length - 1; i >= -1 && !absolute; i--) {
    const part = i >= 0 ? parts[i]! : Deno.cwd();
    if (part === "") continue;
    resolved = `${part}/${resolved}`;
    absolute = part.startsWith("/");
  }
  const normal = normalizeSegments(resolved, !absolute);
  return absolute ? `/${normal}` : normal === "" ? "." : normal;
}

function posixDirname(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  let end = -1;
  let slashes = true;
  for (let i = path.length - 1; i >= 1; i--) {
    if (path[i] === "/") {
      if (!slashes) {
        end = i;
        break;
      }
    } else slashes = false;
  }
  if (end === -1) return rooted ? "/" : ".";
  if (rooted && end === 1) return "//";
  return path.slice(0, end);
}

function posixBasename(path: string): string {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return path.slice(path.lastIndexOf("/", end - 1) + 1, end);
}

function posixRelative(from: string, to: string): string {
  const a = posixResolve(from).split("/").filter((segment) => segment !== "");
  const b = posixResolve(to).split("/").filter((segment) => segment !== "");
  let same = 0;
  while (same < a.length && same < b.length && a[same] === b[same]) same++;
  return [...a.slice(same).map(() => ".."), ...b.slice(same)].join("/");
}

function posixFileURLToPath(url: string | URL): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") throw new TypeError("The URL must be of scheme file");
  if (parsed.hostname !== "") throw new TypeError('File URL host must be "localhost" or empty');
  if (/%2f/i.test(parsed.pathname)) {
    throw new TypeError("File URL path must not include encoded / characters");
  }
  return decodeURIComponent(parsed.pathname);
}

const posix: Paths = {
  sep: "/",
  join: (...parts) => posixNormalize(parts.filter((part) => part !== "").join("/")),
  resolve: posixResolve,
  dirname: posixDirname,
  basename: posixBasename,
  relative: posixRelative,
  fileURLToPath: posixFileURLToPath,
};

// Windows' own, imported only there (src/_late.ts: out of Deno's sight at start elsewhere).
const paths: Paths = Deno.build.os === "windows"
  ? {
    ...await late<typeof import("node:path")>("node:path", import.meta.url),
    ...await late<typeof import("node:url")>("node:url", import.meta.url),
  }
  : posix;

/**
 * The path separator (`node:path`'s `sep`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { sep } from "./_path.ts";
 * assert.equal(sep, Deno.build.os === "windows" ? "\\" : "/");
 * ```
 */
export const sep: string = paths.sep;

/**
 * `parts` joined and normalized (`node:path`'s `join`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { join } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(join("/a/b", "../c", "d/"), "/a/c/d/");
 * ```
 */
export const join: (...parts: string[]) => string = paths.join;

/**
 * An absolute path from `parts`, right to left, the current folder last (`node:path`'s
 * `resolve`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolve } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(resolve("/a/b", "./c/", "../d"), "/a/b/d");
 * ```
 */
export const resolve: (...parts: string[]) => string = paths.resolve;

/**
 * The folder a path names its last entry in (`node:path`'s `dirname`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { dirname } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(dirname("/a/b/c.jsonl"), "/a/b");
 * ```
 */
export const dirname: (path: string) => string = paths.dirname;

/**
 * The last entry of a path (`node:path`'s `basename`, without its suffix).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { basename } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(basename("/a/b/c.jsonl/"), "c.jsonl");
 * ```
 */
export const basename: (path: string) => string = paths.basename;

/**
 * The path from `from` to `to` (`node:path`'s `relative`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { relative } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(relative("/a/b/c", "/a/d"), "../../d");
 * ```
 */
export const relative: (from: string, to: string) => string = paths.relative;

/**
 * The path a `file:` URL names (`node:url`'s `fileURLToPath`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fileURLToPath } from "./_path.ts";
 * if (Deno.build.os !== "windows") assert.equal(fileURLToPath("file:///a%20b/c"), "/a b/c");
 * ```
 */
export const fileURLToPath: (url: string | URL) => string = paths.fileURLToPath;
