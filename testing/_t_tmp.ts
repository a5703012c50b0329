import process from "node:process";
import { inspectSession } from "../src/inspect/mod.ts";
import { SESSION_PAGE_INSPECTION, sessionPageChunks } from "../src/html/mod.ts";
const F = Deno.args[0]!;
const report = await inspectSession(F, SESSION_PAGE_INSPECTION);
const out: number[] = [];
for (let i = 0; i < 5; i++) {
  const c0 = process.cpuUsage();
  let bytes = 0;
  for (const c of sessionPageChunks(report)) bytes += c.length;
  const c1 = process.cpuUsage(c0);
  out.push(Math.round((c1.user + c1.system) / 1000));
}
console.log(Deno.cwd().split("/").pop(), "render cpu ms", out.join(" "));
