/**
 * A grown file's facts come from its last turn and the lines appended (src/catalog/_grow.ts):
 * the bytes an update reads of it are what was appended, its last turn and the listing's
 * bounded head and tail, whatever its size; a rewind is read whole and counted as a fallback.
 */
import { join } from "node:path";
import { Catalog } from "../src/catalog/mod.ts";
import { PREVIEW_HEAD_BYTES, TAIL_BYTES } from "../src/formats/mod.ts";
import { countIo } from "../testing/io_counter.ts";
import { assert, assertEquals } from "./_assert.ts";
import {
  appendLines,
  catalogAnswers,
  catalogHome,
  goOn,
  type HomeFile,
  repeatLine,
} from "./_catalog_home.ts";

/** The bytes before the indexed offset whose hash proves the indexed prefix unchanged. */
const TAIL_HASH_BYTES = 4096;

const sizeOf = (file: HomeFile) => Deno.statSync(file.path).size;

const bytesOf = (reads: { path: string; start: number; end: number }[], path: string) =>
  reads.filter((read) => read.path === path).reduce((n, read) => n + read.end - read.start, 0);

for (const [at, noun] of [[0, "Claude Code transcript"], [2, "Codex rollout"]] as const) {
  Deno.test(`Catalog.update() reads a grown ${noun} from its last turn: the appended bytes twice at most, plus the listing's bounded head and tail`, async () => {
    await using home = await catalogHome();
    const file = home.files[at]!;
    await appendLines(file, file.lines.length);
    let n = 0;
    while (sizeOf(file) < 2 << 20) await goOn(file, n++);
    using catalog = Catalog.open({ path: join(home.dir, "c.sqlite") });
    await catalog.update(await home.sources());

    const before = sizeOf(file);
    await goOn(file, n++);
    await goOn(file, n++);
    const appended = sizeOf(file) - before;
    using io = countIo();
    const summary = await catalog.update(await home.sources());
    const read = bytesOf(io.take().reads, file.path);
    assertEquals([summary.grown, summary.fallbacks], [1, 0]);
    // The last turn before the append (one turn of `goOn`) is read again with it.
    const limit = 2 * appended + PREVIEW_HEAD_BYTES + TAIL_BYTES + TAIL_HASH_BYTES;
    assert(read <= limit, `${read} bytes read of ${sizeOf(file)}, ${appended} appended`);

    // A rewind (a copy of an earlier line) is read whole, and counted.
    await repeatLine(file, 3);
    const rewound = await catalog.update(await home.sources());
    assertEquals([rewound.grown, rewound.fallbacks], [1, at === 2 ? 0 : 1]);
    const sources = await home.sources();
    using fresh = Catalog.open({ path: join(home.dir, "fresh.sqlite") });
    await fresh.update(sources);
    assertEquals(catalogAnswers(catalog, sources), catalogAnswers(fresh, sources));
  });
}
