/**
 * A worker of a cold usage count: reads the files it is sent with their format's `usage`
 * (`USAGE_READERS`, not the adapters: a lean start), one after another in the order sent, and
 * answers each with its usage, or with why it could not be read (`UsagePool` in `_pool.ts`).
 *
 * @module
 */
import { serveReads } from "../io/_shared_reads.ts";
import { readUsage } from "./_pool.ts";

serveReads(readUsage);
