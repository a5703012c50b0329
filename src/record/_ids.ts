/**
 * Session and run ids: time-ordered UUIDs (version 7), so an id alone tells the date folder
 * its session file lives in, and lookup never scans the whole store.
 *
 * @module
 */
import { clock } from "./_clock.ts";
import { TurnlogError } from "../errors/mod.ts";

/** An id that is not a plain id: rejected before it comes near a path. */
export class InvalidSessionIdError extends TurnlogError {
  /** An error with the message given. */
  constructor(message: string, options?: ErrorOptions) {
    super("not_found", message, options);
    this.name = "InvalidSessionIdError";
  }
}

const PLAIN_ID = /^[0-9A-Za-z][0-9A-Za-z_-]{0,99}$/;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let lastMillis = -1;
let lastCounter = 0;

/**
 * A new UUIDv7: 48 bits of Unix milliseconds, then a counter and random bits. Ids made in
 * one process sort in the order they were made.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { newId, idTime } from "./mod.ts";
 * const id = newId(new Date("2026-11-30T10:00:00Z"));
 * assert(idTime(id)?.toISOString() === "2026-11-30T10:00:00.000Z");
 * ```
 */
export function newId(now: Date = clock().now()): string {
  const millis = now.getTime();
  const bytes = clock().random(new Uint8Array(16));
  if (millis === lastMillis && lastCounter < 0xfff) {
    lastCounter++;
  } else {
    lastMillis = millis;
    lastCounter = ((bytes[6]! & 0x0f) << 8 | bytes[7]!) & 0x7ff;
  }
  let rest = millis;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  bytes[6] = 0x70 | (lastCounter >> 8);
  bytes[7] = lastCounter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/** True for a full UUIDv7 in lower case. */
export function isUuidV7(id: string): boolean {
  return UUID_V7.test(id);
}

/** The creation time a UUIDv7 carries, or undefined for any other id. */
export function idTime(id: string): Date | undefined {
  if (!isUuidV7(id)) return undefined;
  return new Date(parseInt(id.slice(0, 8) + id.slice(9, 13), 16));
}

/**
 * Checks that `id` is a plain id or id prefix (letters, digits, `-`, `_`; no path
 * separators, no dots) and returns it in lower case.
 */
export function checkSessionId(id: string): string {
  if (!PLAIN_ID.test(id)) {
    const shown = id === "" ? "an empty id" : JSON.stringify(id);
    throw new InvalidSessionIdError(
      `Invalid session id ${shown}: an id is letters, digits, '-' and '_' only (at most 100)`,
    );
  }
  return id.toLowerCase();
}

/**
 * The range of creation times, in Unix milliseconds, that a UUIDv7 starting with `prefix`
 * can have; undefined when the prefix does not constrain the time (no leading hex digits).
 */
export function prefixTimeRange(prefix: string): { from: number; to: number } | undefined {
  const timeHex = prefix.length > 8 && prefix[8] === "-"
    ? prefix.slice(0, 8) + prefix.slice(9, 13)
    : prefix.slice(0, 8);
  const digits = /^[0-9a-f]*/.exec(timeHex)![0];
  if (digits.length === 0) return undefined;
  const scale = 16 ** (12 - digits.length);
  const from = parseInt(digits, 16) * scale;
  return { from, to: from + scale - 1 };
}
