import { assertEquals } from "./_assert.ts";
import {
  ApprovalRegistry,
  deniedOutput,
  needsApproval,
  NO_TERMINAL_REASON,
  terminalApprover,
} from "../src/runtime/mod.ts";

const request = { runId: "r1", callId: "c1", name: "write_file", arguments: '{"path":"a"}' };
const never = new AbortController().signal;

Deno.test("which calls need approval under each policy", () => {
  const change = { changes: true };
  const read = { changes: false };
  assertEquals(
    [needsApproval("auto", change), needsApproval("auto", read)],
    [false, false],
  );
  assertEquals(
    [needsApproval("ask-changes", change), needsApproval("ask-changes", read)],
    [true, false],
  );
  assertEquals([needsApproval("ask-all", change), needsApproval("ask-all", read)], [true, true]);
});

Deno.test("the terminal approver denies without a terminal, and asks with one", async () => {
  assertEquals(
    await terminalApprover({ isTerminal: () => false }).decide(request, never),
    { approved: false, reason: NO_TERMINAL_REASON },
  );
  const asked: string[] = [];
  const ask = (answer: string | null) =>
    terminalApprover({
      isTerminal: () => true,
      readLine: () => Promise.resolve(answer),
      write: (text) => asked.push(text),
    }).decide(request, never);
  assertEquals(await ask("y"), { approved: true, reason: "approved on the terminal" });
  assertEquals(await ask(" YES "), { approved: true, reason: "approved on the terminal" });
  assertEquals(await ask(""), { approved: false, reason: "denied on the terminal" });
  assertEquals(await ask(null), { approved: false, reason: "no answer (end of input)" });
  assertEquals(asked[0], 'Allow write_file {"path":"a"}? [y/N] ');
});

Deno.test("the denied output tells the model not to retry", () => {
  assertEquals(
    deniedOutput("write_file", NO_TERMINAL_REASON),
    "Approval denied: no terminal to ask for approval. The user did not allow this write_file call; do not retry it. Continue without it, or tell the user what you wanted to do.",
  );
});

Deno.test("the registry resolves a pending approval once, by run and call id", async () => {
  const registry = new ApprovalRegistry({ timeoutMs: 60_000 });
  const decision = registry.approver.decide(request, never);
  assertEquals(registry.pending(), ["r1/c1"]);
  assertEquals(registry.resolve("r1", "other", { approved: true, reason: "x" }), false);
  assertEquals(registry.resolve("r1", "c1", { approved: true, reason: "ok" }), true);
  assertEquals(await decision, { approved: true, reason: "ok" });
  assertEquals(registry.resolve("r1", "c1", { approved: false, reason: "late" }), false);
  assertEquals(registry.pending(), []);
});

Deno.test("a registry approval times out, or ends on abort, as a denial", async () => {
  const registry = new ApprovalRegistry({ timeoutMs: 10 });
  assertEquals(await registry.approver.decide(request, never), {
    approved: false,
    reason: "no decision within 10 ms",
  });
  const slow = new ApprovalRegistry({ timeoutMs: 60_000 });
  const controller = new AbortController();
  const waiting = slow.approver.decide(request, controller.signal);
  controller.abort();
  assertEquals(await waiting, { approved: false, reason: "the run was cancelled" });
  assertEquals(slow.pending(), []);
});
