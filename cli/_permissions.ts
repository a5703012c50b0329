/**
 * What a command needs from Deno's permissions, asked for once and explained, for a user who
 * runs `deno run cli/<command>.ts` without flags: on a terminal, one line says what is needed
 * and why before Deno's own prompts; without one, one line gives the command that works. The
 * `./denow task` form has the permissions already and never gets here.
 *
 * @module
 */
import { fileURLToPath, join, relative, sep } from "../src/_path.ts";
import type { Command } from "./_voice.ts";

/** A permission a command needs, and why, in words for the user. */
export interface Need {
  /** The permission: read or write a path, or read an environment variable. */
  descriptor:
    | Deno.ReadPermissionDescriptor
    | Deno.WritePermissionDescriptor
    | Deno.EnvPermissionDescriptor;
  /** What it is for: "read sessions". */
  why: string;
}

/** The needs of reading `paths` and the environment `variables`. */
export function needsToRead(paths: string[], variables: string[]): Need[] {
  return [
    ...paths.map((path): Need => ({ descriptor: { name: "read", path }, why: `read ${path}` })),
    ...variables.map((variable): Need => ({
      descriptor: { name: "env", variable },
      why: `read the variable ${variable}`,
    })),
  ];
}

/**
 * The need of reading turnlog's own code (the repository's folder, as the current folder
 * reaches it): a command loads its other paths' modules late (src/_late.ts), and Deno asks
 * for read permission on a module it did not see at start.
 */
export function needsOwnCode(): Need[] {
  const url = new URL("../", import.meta.url);
  if (url.protocol !== "file:") return [];
  const path = relative(Deno.cwd(), fileURLToPath(url)) || ".";
  return [{ descriptor: { name: "read", path }, why: "read turnlog's own code" }];
}

/** The needs of writing in `paths` (a repair writes the file, its sidecar and a temp file). */
export function needsToWrite(paths: string[]): Need[] {
  return paths.map((path): Need => ({
    descriptor: { name: "write", path },
    why: `write in ${path}`,
  }));
}

/**
 * How the Deno running this is started from the current folder: the checkout's `./denow` when
 * it is the one `./denow` installed under `.denow/`, else `deno` (the one on PATH).
 */
export function denoCommand(): string {
  const root = fileURLToPath(new URL("../", import.meta.url));
  if (!Deno.execPath().startsWith(join(root, ".denow") + sep)) return "deno";
  const script = relative(Deno.cwd(), join(root, "denow"));
  return script.includes(sep) ? script : `.${sep}${script}`;
}

/** The `deno run` command that has every permission in `needs`. */
function commandThatWorks(command: Command, needs: Need[], args: string[]): string {
  const script = relative(Deno.cwd(), fileURLToPath(new URL(`./${command}.ts`, import.meta.url)));
  const granted = (name: "read" | "write" | "env") =>
    needs.flatMap(({ descriptor: d }) =>
      d.name !== name ? [] : [d.name === "env" ? String(d.variable) : String(d.path)]
    );
  const flags = (["read", "write", "env"] as const).flatMap((name) =>
    granted(name).length > 0 ? [`--allow-${name}=${granted(name).join(",")}`] : []
  );
  const quoted = args.map((arg) =>
    /^[\w./=:,@+-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`
  );
  return [denoCommand(), "run", ...flags, script, ...quoted].join(" ");
}

/**
 * Whether the process may read and write every path and read every variable (`-A`, a task's
 * permission set): then no need can be missing, and a command need not work its needs out
 * (it parses its arguments once, in its run).
 */
export function grantedAll(): boolean {
  return (["read", "write", "env"] as const).every((name) =>
    Deno.permissions.querySync({ name }).state === "granted"
  );
}

/**
 * Makes sure the process has every permission in `needs`. Returns true when it has them (at
 * once, or after the user granted them on a terminal); false after saying what to run instead.
 */
export async function ensurePermissions(
  command: Command,
  needs: Need[],
  args: string[],
): Promise<boolean> {
  const missing = needs.filter((need) =>
    Deno.permissions.querySync(need.descriptor).state !== "granted"
  );
  if (missing.length === 0) return true;
  const whys = missing.map((need) => need.why).join(" and ");
  const hint = `Run: ${commandThatWorks(command, needs, args)}   (or ./denow task ${command} ...)`;
  const stderr = (text: string) => Deno.stderr.writeSync(new TextEncoder().encode(text));
  if (!Deno.stdin.isTerminal()) {
    stderr(`turnlog ${command}: needs permission to ${whys}\n${hint}\n`);
    return false;
  }
  stderr(`turnlog ${command}: needs permission to ${whys}; Deno asks below.\n`);
  for (const need of missing) {
    if ((await Deno.permissions.request(need.descriptor)).state !== "granted") {
      stderr(`turnlog ${command}: permission refused\n${hint}\n`);
      return false;
    }
  }
  return true;
}
