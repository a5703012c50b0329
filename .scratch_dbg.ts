import { CLAUDE_CODE, installedRealClient } from "./testing/real_clients/install.ts";
import { ClaudeHome } from "./testing/real_clients/claude_code.ts";
const client = installedRealClient(CLAUDE_CODE);
if (typeof client === "string") throw new Error(client);
await using home = await ClaudeHome.open(client);
const run = await home.run("run `echo one`");
console.log(run.code, run.stderr.slice(0, 300));
for (const r of run.requests) console.log(r.status, r.beta, r.error, JSON.stringify((r.body as any)?.messages?.map((m: any) => m.role)));
