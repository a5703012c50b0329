/**
 * Small assertions over `node:assert` (the Deno standard library is out of reach here).
 *
 * @module
 */
import nodeAssert from "node:assert/strict";

export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

export function assertStrictEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.strictEqual(actual, expected, message);
}

export function assertMatch(actual: string, pattern: RegExp, message?: string): void {
  nodeAssert.match(actual, pattern, message);
}

// deno-lint-ignore no-explicit-any
type ErrorClass<E extends Error> = new (...args: any[]) => E;

/** Awaits `fn`, asserts it rejects with an instance of `errorClass`, and returns the error. */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  errorClass: ErrorClass<E>,
  messageIncludes?: string,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    nodeAssert.ok(
      error instanceof errorClass,
      `expected ${errorClass.name}, got ${
        error instanceof Error ? `${error.name}: ${error.message}` : String(error)
      }`,
    );
    if (messageIncludes !== undefined) {
      nodeAssert.ok(error.message.includes(messageIncludes), error.message);
    }
    return error;
  }
  throw new nodeAssert.AssertionError({ message: `expected a rejection with ${errorClass.name}` });
}

/** Calls `fn`, asserts it throws an instance of `errorClass`, and returns the error. */
export function assertThrows<E extends Error>(fn: () => unknown, errorClass: ErrorClass<E>): E {
  try {
    fn();
  } catch (error) {
    nodeAssert.ok(error instanceof errorClass, `expected ${errorClass.name}, got ${String(error)}`);
    return error;
  }
  throw new nodeAssert.AssertionError({ message: `expected a throw of ${errorClass.name}` });
}
