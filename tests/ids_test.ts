import { assert, assertEquals, assertThrows } from "./_assert.ts";
import {
  checkSessionId,
  idTime,
  InvalidSessionIdError,
  isUuidV7,
  newId,
  prefixTimeRange,
} from "../src/record/mod.ts";

Deno.test("ids are UUIDv7s carrying their creation time, and sort in creation order", () => {
  const at = new Date("2026-11-30T02:48:20.123Z");
  const ids = Array.from({ length: 50 }, () => newId(at));
  assert(ids.every(isUuidV7));
  assertEquals(idTime(ids[0]!)?.toISOString(), at.toISOString());
  assertEquals([...ids].sort(), ids);
  assertEquals(new Set(ids).size, ids.length);
});

Deno.test("an id prefix narrows the creation time to the folders that can hold it", () => {
  const id = newId(new Date("2026-11-30T02:48:20.123Z"));
  const full = prefixTimeRange(id)!;
  assertEquals(full.from, Date.parse("2026-11-30T02:48:20.123Z"));
  assertEquals(full.to, full.from);
  const short = prefixTimeRange(id.slice(0, 8))!;
  assert(short.from <= full.from && full.from <= short.to);
  assertEquals(short.to - short.from, 0xffff);
  assertEquals(prefixTimeRange("zz"), undefined);
});

Deno.test("checkSessionId accepts plain ids only", () => {
  assertEquals(checkSessionId("ABC-def_1"), "abc-def_1");
  for (const bad of ["", "../x", "/etc", "a.b", "a b", "_x"]) {
    assertThrows(() => checkSessionId(bad), InvalidSessionIdError);
  }
});
