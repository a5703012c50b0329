/**
 * The Codex reader's table of call ids (`CallIdTable`): it answers as a `Map` would, for ids
 * of any characters, set once or again, through its growth.
 */
import fc from "fast-check";
import { assertEquals } from "./_assert.ts";
import { CallIdTable, IdList } from "../src/formats/_call_ids.ts";
import { UsageColumns } from "../src/formats/mod.ts";

const id = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 6 }),
  fc.nat(3000).map((n) => `call_${n}`),
);

Deno.test("CallIdTable answers every id as a Map does, through sets again and growth", () => {
  fc.assert(
    fc.property(
      fc.array(fc.tuple(id, fc.nat(2 ** 31 - 1)), { maxLength: 3000, size: "max" }),
      fc.array(id, { maxLength: 200 }),
      (sets, asked) => {
        const table = new CallIdTable();
        const map = new Map<string, number>();
        for (const [key, value] of sets) {
          table.set(key, value);
          map.set(key, value);
        }
        assertEquals(table.size, map.size);
        for (const key of [...map.keys(), ...asked]) assertEquals(table.get(key), map.get(key));
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("CallIdTable.clear and clone answer as a cleared and a copied Map do, each going on alone", () => {
  const step = fc.oneof(
    fc.tuple(fc.constant("set" as const), id, fc.nat(2 ** 31 - 1)),
    fc.constant(["clear"] as const),
    fc.constant(["clone"] as const),
  );
  fc.assert(
    fc.property(
      fc.array(step, { maxLength: 2000 }),
      fc.array(id, { maxLength: 100 }),
      (steps, asked) => {
        // Every table made, each beside the Map it must answer as.
        const pairs = [{ table: new CallIdTable(), map: new Map<string, number>() }];
        for (const [at, [kind, key, value]] of steps.entries()) {
          const pair = pairs[at % pairs.length]!;
          if (kind === "set") {
            pair.table.set(key, value);
            pair.map.set(key, value);
          } else if (kind === "clear") {
            pair.table.clear();
            pair.map.clear();
          } else pairs.push({ table: pair.table.clone(), map: new Map(pair.map) });
        }
        for (const { table, map } of pairs) {
          assertEquals(table.size, map.size);
          for (const key of [...map.keys(), ...asked]) assertEquals(table.get(key), map.get(key));
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("UsageColumns gives back every event pushed, odd times and counts included", () => {
  const token = fc.oneof(
    fc.nat(2 ** 32 - 1),
    fc.constantFrom(0, -0, -1, 2 ** 32, 2 ** 53, 1.5),
  );
  const time = fc.oneof(
    fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true })
      .map((date) => date.toISOString()),
    fc.constantFrom(
      "2026-02-30T00:00:00.000Z",
      "0000-00-00T99:99:99.999Z",
      "1970-01-01T00:00:00.000Z",
      "2026-02-23T12:00:10Z",
      "2026-0a-23T12:00:10.000Z",
      "+275760-09-13T00:00:00.000Z",
      "not a time",
    ),
  );
  const event = fc.record({
    time,
    model: fc.constantFrom(null, "gpt-5.5", "gpt-5.5-codex"),
    input: token,
    output: token,
    cacheRead: token,
    cacheCreation: token,
    reasoningOutput: token,
  });
  fc.assert(
    fc.property(fc.array(event, { maxLength: 9000, size: "max" }), (events) => {
      const columns = new UsageColumns();
      for (const pushed of events) columns.push(pushed);
      assertEquals(columns.length, events.length);
      assertEquals(columns.toArray(), events.map((pushed) => ({ ...pushed })));
    }),
    { numRuns: 25 },
  );
});

Deno.test("IdList gives back every id pushed, in order, of any characters and length", () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(id, fc.string({ maxLength: 5000 })), { maxLength: 3000 }),
      (ids) => {
        const list = new IdList();
        for (const pushed of ids) list.push(pushed);
        assertEquals(list.length, ids.length);
        assertEquals(Array.from({ length: ids.length + 1 }, (_, at) => list.at(at)), [
          ...ids,
          undefined,
        ]);
      },
    ),
    { numRuns: 40 },
  );
});
