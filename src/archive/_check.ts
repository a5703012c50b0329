/**
 * `archive --check`: every chunk read back against its hash, every version's chunks present
 * and, put together, the bytes its sha256 names. Reads everything; changes nothing.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import { zstdDecompressSync } from "node:zlib";
import { readChunk } from "./_chunks.ts";
import { readIndex } from "./_index.ts";
import { type ArchiveLayout, archiveLayout, chunkPath } from "./_layout.ts";
import { errorMessage } from "../errors/mod.ts";

/** What `--check` found. */
export interface ArchiveCheck {
  /** Chunks read and found right. */
  chunks: number;
  /** File versions put together and found right. */
  versions: number;
  /** Each thing wrong, naming the file. */
  problems: string[];
}

async function* chunkFiles(layout: ArchiveLayout): AsyncIterable<string> {
  for await (const dir of Deno.readDir(layout.chunks)) {
    if (!dir.isDirectory) continue;
    for await (const entry of Deno.readDir(join(layout.chunks, dir.name))) {
      yield join(layout.chunks, dir.name, entry.name);
    }
  }
}

/**
 * Checks the archive at `to`: every chunk, every version.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkArchive } from "./mod.ts";
 * const dir = await Deno.makeTempDir();
 * assert.deepEqual(await checkArchive(dir), { chunks: 0, versions: 0, problems: [] });
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function checkArchive(to: string): Promise<ArchiveCheck> {
  const layout = archiveLayout(resolve(to));
  const result: ArchiveCheck = { chunks: 0, versions: 0, problems: [] };
  const good = new Map<string, number>();
  try {
    for await (const path of chunkFiles(layout)) {
      const name = /([0-9a-f]{64})\.zst$/.exec(path)?.[1];
      if (name === undefined) {
        result.problems.push(`${path}: not a chunk's name`);
        continue;
      }
      try {
        const bytes = zstdDecompressSync(await Deno.readFile(path));
        const sha256 = createHash("sha256").update(bytes).digest("hex");
        if (sha256 !== name) result.problems.push(`${path}: holds bytes whose sha256 is ${sha256}`);
        else {
          good.set(name, bytes.length);
          result.chunks++;
        }
      } catch (error) {
        result.problems.push(`${path}: does not decompress (${errorMessage(error)})`);
      }
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  let index;
  try {
    index = await readIndex(layout);
  } catch (error) {
    result.problems.push(errorMessage(error));
    return result;
  }
  for (const versions of index.versions()) {
    for (const file of versions) {
      const where = `${file.key} version ${file.version}`;
      const missing = file.chunks.find((chunk) => good.get(chunk.sha256) !== chunk.size);
      if (missing !== undefined) {
        result.problems.push(`${where}: chunk ${chunkPath(layout, missing.sha256)} is not right`);
        continue;
      }
      const hash = createHash("sha256");
      for (const chunk of file.chunks) hash.update(await readChunk(layout, chunk));
      if (hash.digest("hex") !== file.sha256) {
        result.problems.push(`${where}: its chunks do not make the bytes its sha256 names`);
      } else result.versions++;
    }
  }
  return result;
}
