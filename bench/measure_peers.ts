/**
 * Measurements of other tools' files and of other tools: turnlog's inspector and import on a
 * Codex rollout or a Claude Code transcript against the naive way, and whole commands (turnlog's
 * CLI, ccusage) or a viewer's server (claude-run) run as a user runs them, each its own process,
 * timed from outside with its peak RSS.
 *
 * @module
 */
import { join } from "node:path";

/** What a child is asked to measure on another tool's file, or of another tool. */
export type PeerTask =
  | { kind: "foreign_inspect" | "foreign_naive"; path: string }
  | { kind: "foreign_import"; path: string; root: string }
  | {
    kind: "command";
    argv: string[];
    env?: Record<string, string>;
    cwd?: string;
    /** Exit codes that mean it worked (the inspector exits 1 for an unhealthy session). */
    okCodes?: number[];
    /** It worked only if it printed something (an error under an allowed code prints nothing). */
    prints?: boolean;
  }
  | { kind: "viewer"; node: string; script: string; home: string; id: string };

/** One measured operation of a peer task. */
export interface PeerOnce {
  samples: number[];
  check: number | string;
  /** A process of its own: its peak RSS and CPU time, in place of the child's. */
  whole?: { peakRss: number; cpuMs: number };
}

/** The naive way on any JSONL file: the whole file in one string, every line parsed. */
async function naiveParse(path: string): Promise<number> {
  let parsed = 0;
  for (const line of (await Deno.readTextFile(path)).split("\n")) {
    if (line.trim() === "") continue;
    JSON.parse(line);
    parsed++;
  }
  return parsed;
}

async function foreignInspect(path: string): Promise<number> {
  const { inspectSession, reportJsonPieces } = await import("../src/inspect/mod.ts");
  let chars = 0;
  for (const piece of reportJsonPieces(await inspectSession(path))) chars += piece.length;
  return chars;
}

async function foreignImport(path: string, root: string): Promise<number> {
  const { importSession } = await import("../src/import/mod.ts");
  return (await importSession(path, { root })).items;
}

async function timed(fn: () => Promise<number | string>): Promise<PeerOnce> {
  const start = performance.now();
  const check = await fn();
  return { samples: [performance.now() - start], check };
}

/**
 * A command run to its end under GNU time, which reports its peak RSS and CPU time; the wall
 * time is taken here. The check is the size of what it printed.
 */
async function command(task: Extract<PeerTask, { kind: "command" }>): Promise<PeerOnce> {
  const report = await Deno.makeTempFile({ prefix: "turnlog-bench-time-" });
  try {
    const start = performance.now();
    const out = await new Deno.Command("/usr/bin/time", {
      args: ["-f", "%M %U %S", "-o", report, ...task.argv],
      env: task.env ?? {},
      ...(task.cwd ? { cwd: task.cwd } : {}),
      stdout: "piped",
      stderr: "piped",
    }).output();
    const ms = performance.now() - start;
    if (!(task.okCodes ?? [0]).includes(out.code) || (task.prints && out.stdout.length === 0)) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-3).join(" ");
      throw new Error(`${task.argv[0]} exited ${out.code}: ${why}`);
    }
    const [kb, user, system] = (await Deno.readTextFile(report)).trim().split("\n").at(-1)!
      .split(" ").map(Number);
    const whole = { peakRss: kb! * 1024, cpuMs: (user! + system!) * 1000 };
    return { samples: [ms], check: out.stdout.length, whole };
  } finally {
    await Deno.remove(report);
  }
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Peak RSS and CPU time of a running process, from /proc. */
async function processFigures(pid: number): Promise<{ peakRss: number; cpuMs: number }> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
  // utime and stime are the 14th and 15th fields, after the command's name in parentheses.
  const stat = (await Deno.readTextFile(`/proc/${pid}/stat`)).split(") ")[1]!.split(" ");
  const ticks = Number(stat[11]) + Number(stat[12]);
  return { peakRss: kb * 1024, cpuMs: ticks * 10 };
}

/**
 * claude-run as its page uses it: the server started on the home (no browser), then the
 * conversation it serves to its page fetched; timed from the start to the last byte. What the
 * browser then does with it is not counted.
 */
async function viewer(task: Extract<PeerTask, { kind: "viewer" }>): Promise<PeerOnce> {
  const port = freePort();
  const start = performance.now();
  const child = new Deno.Command(task.node, {
    args: [task.script, "--no-open", "--port", String(port), "--dir", task.home],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    const url = `http://127.0.0.1:${port}/api/conversation/${task.id}`;
    const deadline = start + 60_000;
    while (true) {
      try {
        const response = await fetch(url);
        const body = await response.text();
        const ms = performance.now() - start;
        if (!response.ok) throw new Error(`claude-run answered ${response.status}`);
        return { samples: [ms], check: body.length, whole: await processFigures(child.pid) };
      } catch (error) {
        if (!(error instanceof TypeError) || performance.now() > deadline) throw error;
        await new Promise((done) => setTimeout(done, 10));
      }
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

/** Runs a peer task once. */
export async function runPeerTask(task: PeerTask, iteration: number): Promise<PeerOnce> {
  switch (task.kind) {
    case "foreign_inspect":
      return await timed(() => foreignInspect(task.path));
    case "foreign_naive":
      return await timed(() => naiveParse(task.path));
    case "foreign_import": {
      const root = join(task.root, String(iteration));
      try {
        return await timed(() => foreignImport(task.path, root));
      } finally {
        await Deno.remove(root, { recursive: true }).catch(() => {});
      }
    }
    case "command":
      return await command(task);
    case "viewer":
      return await viewer(task);
  }
}
