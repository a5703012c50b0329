/**
 * The adapter contract (`_format_contract.ts`) for every other tool's format of the registry,
 * each with its fixture (`_format_fixtures.ts`); an adapter without one fails.
 */
import { assertEquals, assertRejects } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import { checkFormatContract } from "./_format_contract.ts";
import { FIXTURES } from "./_format_fixtures.ts";
import { ADAPTERS } from "../src/formats/mod.ts";

for (const adapter of ADAPTERS) {
  Deno.test(`checkFormatContract() holds for ${adapter.tool}`, async () => {
    await using dir = await tempDir();
    const cases = await checkFormatContract(adapter, FIXTURES, dir.path);
    assertEquals(cases > 0, true);
  });
}

Deno.test("checkFormatContract() fails an adapter without fixtures", async () => {
  await using dir = await tempDir();
  const adapter = ADAPTERS[0];
  const { [adapter.name]: _left, ...without } = FIXTURES;
  await assertRejects(
    () => checkFormatContract(adapter, without, dir.path),
    Error,
    `The adapter ${adapter.name} has no fixture in the contract suite`,
  );
});
