/**
 * The archive's chunks: a piece of a file's raw bytes, zstd-compressed into a file named by the
 * sha256 of the raw bytes. A chunk is written once (one already there is not written again:
 * the versions of a session share what they share) and read back checked against its name.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { dirname } from "node:path";
import { constants, zstdCompressSync, zstdDecompressSync } from "node:zlib";
import { TurnlogError } from "../errors/mod.ts";
import { makePrivateDir, writeWhole } from "./_durable.ts";
import type { ChunkRef } from "./_index.ts";
import { type ArchiveLayout, chunkPath } from "./_layout.ts";

/** The most raw bytes one chunk holds (a file's bytes are cut into pieces of this size). */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** zstd's level: 3, its default, about 10 times smaller for JSON lines at hundreds of MB/s. */
const LEVEL = 3;

/** A chunk whose bytes do not match its name, or that is missing. */
export class ChunkError extends TurnlogError {
  /** An error naming the chunk. */
  constructor(message: string, options?: ErrorOptions) {
    super("store", message, options);
    this.name = "ChunkError";
  }
}

/** The sha256 of bytes, in hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What storing a chunk did. */
export interface StoredChunk extends ChunkRef {
  /** The bytes it took on the disk: 0 when it was there already. */
  stored: number;
}

/** Chunk folders that got a new chunk since the last {@linkcode ChunkWriter.takeDirs}. */
export class ChunkWriter {
  #dirs = new Set<string>();
  #made = new Set<string>();

  /** A writer of chunks into the archive laid out as `layout`. */
  constructor(readonly layout: ArchiveLayout) {}

  /** Stores the bytes as a chunk, unless a chunk of the same bytes is there. */
  async write(bytes: Uint8Array): Promise<StoredChunk> {
    const sha256 = sha256Hex(bytes);
    const path = chunkPath(this.layout, sha256);
    if (await exists(path)) return { sha256, size: bytes.length, stored: 0 };
    const dir = dirname(path);
    if (!this.#made.has(dir)) {
      await makePrivateDir(dir);
      this.#made.add(dir);
    }
    const compressed = zstdCompressSync(bytes, {
      params: { [constants.ZSTD_c_compressionLevel]: LEVEL },
    });
    await writeWhole(path, [compressed], this.layout.tmp);
    this.#dirs.add(dir);
    return { sha256, size: bytes.length, stored: compressed.length };
  }

  /** The folders written into since the last call (to sync before the index names them). */
  takeDirs(): string[] {
    const dirs = [...this.#dirs];
    this.#dirs.clear();
    return dirs;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/**
 * A chunk's raw bytes, checked against its hash and size.
 *
 * @throws {ChunkError} for a chunk that is missing, does not decompress, or holds other bytes
 */
export async function readChunk(layout: ArchiveLayout, chunk: ChunkRef): Promise<Uint8Array> {
  const path = chunkPath(layout, chunk.sha256);
  let compressed: Uint8Array;
  try {
    compressed = await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ChunkError(`Chunk missing: ${path}`, { cause: error });
    }
    throw error;
  }
  let bytes: Uint8Array;
  try {
    bytes = zstdDecompressSync(compressed);
  } catch (error) {
    throw new ChunkError(`Chunk does not decompress: ${path}`, { cause: error });
  }
  if (bytes.length !== chunk.size || sha256Hex(bytes) !== chunk.sha256) {
    throw new ChunkError(`Chunk holds other bytes than its name says: ${path}`);
  }
  return bytes;
}
