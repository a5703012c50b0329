/**
 * A worker of a catalog update: reads the files it is sent for their facts, one at a time
 * (`readFacts`), and answers each with what it read, or why the read failed (the update then
 * reads that file itself, and says why when it fails there too).
 *
 * @module
 */
import { serveReads } from "../io/_shared_reads.ts";
import { readFacts } from "./_facts.ts";
import type { FactsJob } from "./_facts_pool.ts";

serveReads(({ wanted, size, reader }: FactsJob) => readFacts(wanted, size, reader));
