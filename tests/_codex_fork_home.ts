/**
 * A Codex home of paginated forks for the search tests: a parent that goes on after its fork
 * point, a fork of it, a fork of the fork, and a fork whose parent is not in the home.
 */
import { join } from "node:path";
import { PaginatedRolloutBuilder } from "../testing/formats/codex_paginated.ts";

/** A Codex home with a paginated parent, a fork of it, a fork of the fork and an orphan fork. */
export async function forkHome(root: string) {
  const ids = {
    parent: "01a24700-0000-7000-8000-000000000001",
    fork: "01a24701-0000-7000-8000-000000000002",
    fork2: "01a24702-0000-7000-8000-000000000003",
    orphan: "01a24703-0000-7000-8000-000000000004",
  };
  const parent = new PaginatedRolloutBuilder({ id: ids.parent }).meta()
    .turn("p1", "run the zebrafish count").call("c1", "count zebrafish").usage(100, 10)
    .output("c1", "zebrafish: 12").tokenCount(100, 10).answer("Twelve zebrafish.")
    .usage(120, 12).tokenCount(120, 12).complete("Twelve zebrafish.");
  const point = parent.forkPoint();
  // The parent goes on after the fork point: not the fork's history.
  parent.turn("p2", "now the narwhal zebrafish", false).answer("Narwhals.").usage(130, 5)
    .tokenCount(130, 5).complete("Narwhals.");
  const fork = new PaginatedRolloutBuilder({ id: ids.fork, base: point }).meta()
    .turn("f1", "fork asks about zebrafish again", false).answer("Still twelve.").usage(140, 6)
    .tokenCount(140, 6).complete("Still twelve.");
  const fork2 = new PaginatedRolloutBuilder({ id: ids.fork2, base: fork.forkPoint() }).meta()
    .turn("g1", "a grandchild question", false).answer("Yes.").usage(150, 6)
    .tokenCount(150, 6).complete("Yes.");
  const orphan = new PaginatedRolloutBuilder({
    id: ids.orphan,
    base: {
      thread_id: "01a24799-0000-7000-8000-000000000099",
      end_ordinal_exclusive: 9,
      end_byte_offset: 900,
    },
  }).meta().turn("o1", "orphan zebrafish", false).answer("Alone.").usage(10, 1)
    .tokenCount(10, 1).complete("Alone.");
  const paths: Record<keyof typeof ids, string> = { parent: "", fork: "", fork2: "", orphan: "" };
  const texts = { parent, fork, fork2, orphan };
  for (const [day, name] of (["parent", "fork", "fork2", "orphan"] as const).entries()) {
    const dir = join(root, "2026", "12", `0${day + 1}`);
    await Deno.mkdir(dir, { recursive: true });
    paths[name] = join(dir, `rollout-2026-12-0${day + 1}T20-00-00-${ids[name]}.jsonl`);
    await Deno.writeTextFile(paths[name], texts[name].text());
  }
  return { ids, paths };
}
