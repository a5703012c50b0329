/**
 * serve against real pages in headless Chromium: a page on another origin (another port of
 * 127.0.0.1) and a page whose name rebinds to 127.0.0.1 (first served by another server on
 * serve's port, as a rebinding attacker's is) try to start a turn and to approve a pending
 * call, under every policy; serve's own page starts a turn and approves its call.
 */
import { join } from "node:path";
import { assert, assertEquals } from "./_assert.ts";
import { tempDir } from "./_helpers.ts";
import type { Page } from "puppeteer-core";
import { APPROVAL_TOKEN_HEADER } from "../src/server/mod.ts";
import { startServe } from "../testing/serve_process.ts";
import { chromiumPath, hasChromium, type OpenedPage, startBrowser } from "../testing/browser.ts";

const SKIP = !hasChromium();
if (SKIP) {
  console.log(
    `serve_origin_browser_test: SKIPPED, no Chromium at ${chromiumPath()} (apt-get install chromium, or set TURNLOG_CHROMIUM)`,
  );
}

/** The name the rebinding page is served under; Chromium resolves it to 127.0.0.1. */
const REBIND = "rebind.test";
const POLICIES = ["auto", "ask-changes", "ask-all"] as const;

/**
 * The attacker's page. `sendAll(url, body, list)` sends what a page can to `url` with `body`
 * (a JSON object's text): a `text/plain` form (the JSON as the field's name and value), a
 * no-cors fetch as text/plain, a fetch as JSON with a guessed approval token (from another
 * origin: a preflight first), and a GET of serve's list; it returns what the page could
 * tell of each.
 */
const ATTACKER_PAGE = `<!doctype html><title>elsewhere</title><iframe name=sink></iframe>
<script>
async function sendAll(url, body, list) {
  const outcome = (promise) =>
    promise.then((r) => r.type + " " + r.status, (e) => "error " + e.name);
  const form = document.createElement("form");
  Object.assign(form, { method: "POST", action: url, enctype: "text/plain", target: "sink" });
  const field = document.createElement("input");
  field.name = body.slice(0, -1) + ',"pad":"';
  field.value = '"}';
  form.append(field);
  document.body.append(form);
  const sink = document.querySelector("iframe");
  // The frame loads the answer; a turn's stream that never ends is given 5 seconds.
  await new Promise((resolve) => {
    sink.onload = resolve;
    setTimeout(resolve, 5000);
    form.submit();
  });
  const plain = { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body };
  const json = {
    method: "POST",
    headers: { "content-type": "application/json", "${APPROVAL_TOKEN_HEADER}": "${
  "0".repeat(64)
}" },
    body,
  };
  return ["form sent", await outcome(fetch(url, plain)), await outcome(fetch(url, json)),
    await outcome(fetch(list))];
}
</script>`;

/** A server of the attacker's page, on 127.0.0.1. */
function attackerServer(port = 0): Deno.HttpServer<Deno.NetAddr> {
  return Deno.serve(
    { hostname: "127.0.0.1", port, onListen() {} },
    () => new Response(ATTACKER_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } }),
  );
}

/** Runs the attacker page's `sendAll` in `page`. */
async function sendAll(page: Page, url: string, body: string, list: string): Promise<string[]> {
  return await page.evaluate<[], () => Promise<string[]>>(
    `sendAll(${[url, body, list].map((v) => JSON.stringify(v)).join(", ")})`,
  );
}

/** The statuses of the responses `opened` got from under `prefix` since response `since`. */
function statusesFrom(opened: OpenedPage, prefix: string, since: number): number[] {
  return opened.responses.slice(since).filter((r) => r.url.startsWith(prefix)).map((r) => r.status);
}

/** A turn started by a client that is not a browser, read up to its approval request. */
async function pendingCall(base: string) {
  const response = await fetch(`${base}/api/agent/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ message: "write secret.txt with 'x'" }),
  });
  const token = response.headers.get(APPROVAL_TOKEN_HEADER)!;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const pattern = /event: approval_requested\ndata: (.+)\n/;
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    assert(!done, text);
    text += value;
  }
  const event = JSON.parse(pattern.exec(text)![1]!);
  return {
    token,
    sessionId: event.sessionId as string | undefined,
    path: `/api/agent/approvals/${event.runId}/${event.callId}`,
    async rest() {
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        text += next.value;
      }
      return text;
    },
  };
}

/** The sessions under `dir` (0 when it was never made). */
async function sessionFiles(dir: string): Promise<number> {
  let count = 0;
  const walk = async (at: string) => {
    for await (const entry of Deno.readDir(at)) {
      if (entry.isDirectory) await walk(join(at, entry.name));
      else if (entry.name.endsWith(".jsonl")) count++;
    }
  };
  await walk(dir).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  return count;
}

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

/**
 * From a live session page of serve: a turn posted with fetch (the page's own origin), its
 * approval answered with the token the stream came with. Returns the stream's text.
 */
function turnFromOwnPage(page: Page, sessionId: string): Promise<string> {
  return page.evaluate(
    async (sessionId, tokenHeader) => {
      const response = await fetch("/api/agent/stream", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "write own.txt with 'ok'", sessionId }),
      });
      const token = response.headers.get(tokenHeader)!;
      const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
      let text = `${response.status}\n`;
      let answered = false;
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        text += next.value;
        const asked = /event: approval_requested\ndata: (.+)\n/.exec(text);
        if (asked && !answered) {
          answered = true;
          const { runId, callId } = JSON.parse(asked[1]!);
          const approval = await fetch(`/api/agent/approvals/${runId}/${callId}`, {
            method: "POST",
            headers: { "content-type": "application/json", [tokenHeader]: token },
            body: JSON.stringify({ decision: "approve" }),
          });
          text += `approval ${approval.status}\n`;
        }
      }
      return text;
    },
    sessionId,
    APPROVAL_TOKEN_HEADER,
  );
}

Deno.test({
  name:
    "serve in Chromium: a page on another origin or under another Host starts no turn and approves no call, under every policy",
  ignore: SKIP,
  async fn(t) {
    await using browser = await startBrowser({
      args: [`--host-resolver-rules=MAP ${REBIND} 127.0.0.1`],
    });
    const elsewhere = attackerServer();
    const crossOrigin = `http://127.0.0.1:${elsewhere.addr.port}`;
    await using cross = await browser.open(`${crossOrigin}/`);
    try {
      for (const policy of POLICIES) {
        await t.step(`--policy ${policy}`, async () => {
          await using dir = await tempDir();
          const sessionsDir = join(dir.path, "sessions");
          const workspace = join(dir.path, "workspace");
          await Deno.mkdir(workspace);
          // The rebinding page is served first by another server on the port serve takes
          // next: its name then reaches serve, and the page sees serve as its own origin.
          const first = attackerServer();
          const port = first.addr.port;
          await using rebound = await browser.open(`http://${REBIND}:${port}/`);
          await first.shutdown();
          await using _serve = await startServe([
            ...["--port", String(port), "--model", "scripted", "--policy", policy],
            ...["--sessions-dir", sessionsDir, "--workspace", workspace],
          ]);
          const base = `http://127.0.0.1:${port}`;
          const pending = policy === "auto" ? undefined : await pendingCall(base);
          const before = await sessionFiles(sessionsDir);
          /** Every attack of `opened` (at `origin`) on serve: each one seen refused. */
          const attack = async (opened: OpenedPage, origin: string, outcomes: string[]) => {
            const seen = opened.responses.length;
            const turn = JSON.stringify({ message: "write pwned.txt with 'x'" });
            const list = `${origin}/`;
            assertEquals(
              await sendAll(opened.page, `${origin}/api/agent/stream`, turn, list),
              outcomes,
            );
            if (pending) {
              const approve = JSON.stringify({ decision: "approve" });
              assertEquals(
                await sendAll(opened.page, `${origin}${pending.path}`, approve, list),
                outcomes,
              );
            }
            const statuses = statusesFrom(opened, `${origin}/api/`, seen);
            assert(statuses.length >= 2, `requests that reached serve: ${statuses}`);
            assertEquals([...new Set(statuses)], [403]);
            assertEquals(await sessionFiles(sessionsDir), before, "no turn started");
            assertEquals(await exists(join(workspace, "pwned.txt")), false);
            assertEquals(await exists(join(workspace, "secret.txt")), false);
          };
          await attack(cross, base, [
            "form sent",
            "opaque 0",
            "error TypeError", // The preflight is refused.
            "error TypeError", // The list is not this origin's to read.
          ]);
          await attack(rebound, `http://${REBIND}:${port}`, [
            "form sent",
            "basic 403",
            "basic 403",
            "basic 403",
          ]);

          if (pending) {
            const deny = await fetch(`${base}${pending.path}`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                [APPROVAL_TOKEN_HEADER]: pending.token,
              },
              body: JSON.stringify({ decision: "deny" }),
            });
            // The call still waited: the client that started the run denies it now.
            assertEquals(await deny.json(), { ok: true, approved: false });
            assert((await pending.rest()).includes("event: run_succeeded"));
            assertEquals(await exists(join(workspace, "secret.txt")), false);
          }

          // serve's own page still works: its list, a live session page, and a turn (with
          // its approval) posted from that page.
          const started = await fetch(`${base}/api/agent/stream`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ message: "hello" }),
          });
          const sessionId = /"sessionId":"([^"]+)"/.exec(await started.text())![1]!;
          await using own = await browser.open(`${base}/sessions/${sessionId}`);
          await own.page.waitForSelector("#live[data-state='live']", { timeout: 5000 });
          const text = await turnFromOwnPage(own.page, sessionId);
          assert(text.startsWith("200\n"), text);
          assert(text.includes("event: run_succeeded"), text);
          assertEquals(text.includes("approval 200\n"), policy !== "auto", text);
          assertEquals(await Deno.readTextFile(join(workspace, "own.txt")), "ok");
          await own.page.waitForSelector("[data-turn='2']", { timeout: 10_000 });
          assertEquals(own.consoleErrors, []);
          assertEquals(own.pageErrors, []);
        });
      }
    } finally {
      await elsewhere.shutdown();
    }
  },
});
