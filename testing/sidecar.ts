/**
 * The quarantine sidecar read back entry by entry, for the tests that check no byte is ever
 * lost: each entry's header (what line, why, how many bytes, from which offset) and the exact
 * bytes it keeps.
 *
 * @module
 */
import { quarantinePath } from "../src/store/mod.ts";

/** One entry of a sidecar. */
export interface SidecarEntry {
  /** The header line, without its newline. */
  header: string;
  /** The problem kind the header names. */
  kind: string;
  /** The byte offset the bytes had in the session file. */
  start: number;
  /** The bytes kept, exactly. */
  bytes: Uint8Array;
}

const HEADER =
  /^# turnlog quarantine: [^,]+, ([^,]+), (\d+) bytes, from byte (\d+), sha256 [0-9a-f]{64}, /;

/**
 * The entries of a sidecar's bytes, in order.
 *
 * @throws {Error} when the bytes are not a well-formed sidecar (a header that does not parse,
 *   or bytes not followed by their newline)
 */
export function parseSidecar(data: Uint8Array): SidecarEntry[] {
  const decoder = new TextDecoder();
  const entries: SidecarEntry[] = [];
  let at = 0;
  while (at < data.length) {
    const newline = data.indexOf(10, at);
    if (newline === -1) throw new Error(`Sidecar: a header without its newline at byte ${at}`);
    const header = decoder.decode(data.subarray(at, newline));
    const match = HEADER.exec(header);
    if (!match) throw new Error(`Sidecar: not a header at byte ${at}: ${header.slice(0, 120)}`);
    const length = Number(match[2]);
    const from = newline + 1;
    if (data[from + length] !== 10) {
      throw new Error(`Sidecar: the ${length} bytes at byte ${from} do not end in a newline`);
    }
    entries.push({
      header,
      kind: match[1]!,
      start: Number(match[3]),
      bytes: data.slice(from, from + length),
    });
    at = from + length + 1;
  }
  return entries;
}

/** The entries of the sidecar of the session file at `sessionPath`; none when it has none. */
export async function readSidecar(sessionPath: string): Promise<SidecarEntry[]> {
  try {
    return parseSidecar(await Deno.readFile(quarantinePath(sessionPath)));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
}

/** Whether two byte arrays hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
