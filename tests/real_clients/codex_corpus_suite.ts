/**
 * Ground truth from real sessions: each Codex rollout of the shared corpus (Codex 0.104-0.135,
 * recorded against the real API) is resumed by the real Codex (the pinned 0.171.0, or the user's own) against the embedded
 * model, and what Codex sent is compared with turnlog's reading: every call whose real output
 * Codex sent is paired in turnlog's reading with that output; the calls Codex answers with its
 * own `aborted` are the ones turnlog calls orphans. Then turnlog repairs the file (in the same
 * home, at the same path) and Codex resumes it again: every request accepted, each of those
 * outputs sent unchanged, nothing aborted any more, no byte lost; a file Codex resumed with
 * nothing to mend is left as it was. turnlog's tokens are Codex's own totals. Ignored, saying why, without the corpus or Codex.
 */
import { join } from "node:path";
import { assertEquals } from "../_assert.ts";
import { CORPUS } from "../_corpus.ts";
import { CODEX, installedRealClient, type RealClient } from "../../testing/real_clients/install.ts";
import {
  codexResume,
  makeCodexHome,
  placeRollout,
  restoreHome,
  snapshotHome,
  startCodexApi,
} from "../../testing/real_clients/codex.ts";
import {
  abortedInRequest,
  assertAcceptedResume,
  assertNothingLost,
  codexTotal,
  lastRequest,
  reading,
  realOutputs,
  repairTwice,
} from "../../testing/real_clients/codex_judge.ts";

/** The corpus's Codex folder (`TURNLOG_CORPUS` names another corpus folder). */
const CODEX_CORPUS = join(Deno.env.get("TURNLOG_CORPUS") ?? CORPUS, "codex");
const client = installedRealClient(CODEX);

function corpusFiles(): string[] | string {
  try {
    return [...Deno.readDirSync(CODEX_CORPUS)].filter((entry) => entry.name.endsWith(".jsonl"))
      .map((entry) => entry.name).sort();
  } catch {
    return `the shared corpus is not at ${CODEX_CORPUS}`;
  }
}

const files = corpusFiles();
const missing = typeof client === "string" ? client : typeof files === "string" ? files : null;
if (missing !== null) console.log(`codex corpus ground truth ignored: ${missing}`);

for (const name of typeof files === "string" ? ["(corpus)"] : files) {
  Deno.test({
    name: `codex ${
      typeof client === "string" ? CODEX.version : client.version
    } resumes corpus ${name}: what it sends is turnlog's reading, before and after repair`,
    ignore: missing !== null,
    async fn() {
      await using api = await startCodexApi();
      await using home = await makeCodexHome(client as RealClient, api);
      const text = await Deno.readTextFile(join(CODEX_CORPUS, name));
      const { rollout, threadId } = await placeRollout(home, text);
      await snapshotHome(home, "placed");
      const read = await reading(rollout);
      assertEquals(read.tokens, await codexTotal(rollout), "tokens as Codex counted them");
      const ran = await codexResume(home, threadId, "say done");
      assertEquals(ran.code, 0, ran.stderr);
      assertEquals(api.requests.map((request) => [request.status, request.error]), [[200, null]]);
      const sent = realOutputs(lastRequest(home));
      for (const [callId, output] of sent) {
        assertEquals(read.outputs.get(callId), output, `${callId}: paired in turnlog's reading`);
      }
      assertEquals(sent, read.historyOutputs, "the outputs of turnlog's next history");
      const aborted = abortedInRequest(lastRequest(home));
      assertEquals(aborted, read.orphanCalls.filter((id) => aborted.includes(id)));
      assertEquals(
        aborted.length,
        read.orphanCalls.length,
        "Codex aborts what turnlog calls orphans",
      );

      await restoreHome(home, "placed");
      const original = await Deno.readFile(rollout);
      const repaired = await repairTwice(rollout);
      assertEquals(repaired.changed, aborted.length > 0 || read.problems > 0, repaired.said);
      await assertNothingLost(rollout, original);
      await assertAcceptedResume(home, threadId, rollout, sent);
      assertEquals(abortedInRequest(lastRequest(home)), []);
    },
  });
}
