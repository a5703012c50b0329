/**
 * The clock and the randomness behind record timestamps and ids, in one place so that a run can
 * be made reproducible: the notebooks and the example sessions are generated with a fixed
 * clock and seeded ids, and give the same bytes every time.
 *
 * @module
 */

/** Where time and random bytes come from. */
export interface Clock {
  /** The current time. */
  now(): Date;
  /** Fills `bytes` with random bytes. */
  random(bytes: Uint8Array): Uint8Array;
}

/** The system clock and the platform's secure random source. */
export const SYSTEM_CLOCK: Clock = {
  now: () => new Date(),
  random: (bytes) => crypto.getRandomValues(bytes),
};

/**
 * The environment variable that makes a process reproducible: `<ISO time>` or
 * `<ISO time>,<seed>`. Time starts there and moves one millisecond per reading; random bytes
 * come from a generator seeded with `seed` (default 1).
 */
export const FIXED_CLOCK_ENV = "TURNLOG_FIXED_CLOCK";

/**
 * A clock that starts at `start` and moves one millisecond each time it is read, with random
 * bytes from a generator seeded by `seed`: the same calls give the same times and ids.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { fixedClock } from "./mod.ts";
 * const a = fixedClock(new Date("2026-01-15T09:00:00Z"), 7);
 * const b = fixedClock(new Date("2026-01-15T09:00:00Z"), 7);
 * assert.deepEqual(a.random(new Uint8Array(4)), b.random(new Uint8Array(4)));
 * assert.equal(a.now().toISOString(), "2026-01-15T09:00:00.000Z");
 * assert.equal(a.now().toISOString(), "2026-01-15T09:00:00.001Z");
 * ```
 */
export function fixedClock(start: Date, seed = 1): Clock {
  let millis = start.getTime();
  let state = seed >>> 0;
  const next = () => {
    // mulberry32: small, seedable, good enough for ids that must not collide.
    let t = (state = (state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    now: () => new Date(millis++),
    random: (bytes) => {
      for (let i = 0; i < bytes.length; i++) bytes[i] = next() & 0xff;
      return bytes;
    },
  };
}

let current: Clock | undefined;

/** The clock of the environment variable, or the system clock. */
function fromEnvironment(): Clock {
  // Asked first, so that a process without the permission never prompts for it.
  const permission = Deno.permissions.querySync({ name: "env", variable: FIXED_CLOCK_ENV });
  const value = permission.state === "granted" ? Deno.env.get(FIXED_CLOCK_ENV) : undefined;
  if (!value) return SYSTEM_CLOCK;
  const [time, seed] = value.split(",");
  const start = new Date(time ?? "");
  if (Number.isNaN(start.getTime())) return SYSTEM_CLOCK;
  return fixedClock(start, seed === undefined ? 1 : Number(seed));
}

/** The clock records and ids use: the one set, else `TURNLOG_FIXED_CLOCK`'s, else the system's. */
export function clock(): Clock {
  return current ??= fromEnvironment();
}

/** Makes `next` the clock records and ids use (undefined: back to the default). */
export function setClock(next: Clock | undefined): void {
  current = next;
}
