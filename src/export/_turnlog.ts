/**
 * The turnlog writer: a conversation written as a new turnlog session, as import writes one
 * (a `session_meta` whose `importedFrom` says where it came from, one `turn_context`, the
 * history as `response_item` records with the source's times, a `run_finished`), for
 * `export --to turnlog`; `resume` continues it. It is not the turnlog adapter's `write`, as
 * the other tools' writers are their adapters': turnlog's store (which makes the session)
 * reads the formats, so a format folder that wrote through the store would import in a circle.
 *
 * @module
 */
import type { ExportConversation, WriteOptions, WrittenSession } from "../formats/mod.ts";
import { makeRecord } from "../record/mod.ts";
import { createSession } from "../store/mod.ts";
import { shellQuote } from "../text/mod.ts";

/**
 * Writes `conversation` as a new turnlog session in the sessions root `options.root`.
 *
 * @throws {Deno.errors.PermissionDenied} when the root cannot be written
 */
export async function writeTurnlogSession(
  conversation: ExportConversation,
  options: WriteOptions,
): Promise<WrittenSession> {
  // turnlog's history holds system messages too: every item is carried.
  const items = conversation.items;
  const model = conversation.model ?? "unknown";
  const policy = { approval: conversation.approval };
  const created = await createSession(options.root, {
    cwd: conversation.cwd,
    modelProvider: conversation.provider ?? "unknown",
    model,
    wireApi: "responses",
    policy,
    importedFrom: {
      format: conversation.source.format,
      path: conversation.source.path,
      sessionId: conversation.source.sessionId,
    },
    ...(options.id === undefined ? {} : { id: options.id }),
  });
  const runId = created.meta.id;
  const start = new Date(conversation.items[0]?.time ?? created.meta.createdAt);
  const end = new Date(conversation.items.at(-1)?.time ?? created.meta.createdAt);
  try {
    await created.writer.append([
      makeRecord(
        "turn_context",
        { runId, model, wireApi: "responses", policy, resumed: false },
        start,
      ),
      ...items.map(({ item, time }) => makeRecord("response_item", item, new Date(time))),
      makeRecord("run_finished", { runId, outcome: "succeeded", rounds: 0 }, end),
    ]);
  } finally {
    await created.writer.close();
  }
  return {
    id: runId,
    path: created.location.path,
    resume: `turnlog resume --sessions-dir ${
      shellQuote(options.root)
    } --session ${runId} "<your message>"`,
    degraded: [],
  };
}
