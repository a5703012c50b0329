/**
 * The workspace a run's tools work in: every path a tool is given is resolved against it and
 * refused when it leads outside, lexically (`..`, another absolute path) or through a
 * symlink, before anything is read or written.
 *
 * @module
 */
import { TurnlogError } from "../errors/mod.ts";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";

/** A path a tool was given leads outside the workspace. */
export class OutsideWorkspaceError extends TurnlogError {
  /** An error with the message given. */
  constructor(message: string, options?: ErrorOptions) {
    super("workspace", message, options);
    this.name = "OutsideWorkspaceError";
  }
}

/** Whether `path` is `root` or inside it (both absolute, as they are: no symlink resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

async function realPathOrUndefined(path: string): Promise<string | undefined> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

/** Folders of the system: never a workspace, nor any folder inside them. */
const SYSTEM_TREES = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr/bin",
  "/usr/lib",
  "/usr/sbin",
  "/System",
  "/private/etc",
];
/** Folders that hold everyone's or everything's files: never a workspace themselves. */
const SHARED_FOLDERS = [
  "/home",
  "/Users",
  "/root",
  "/usr",
  "/var",
  "/opt",
  "/srv",
  "/mnt",
  "/media",
  "/tmp",
  "/private",
];

/** The home folder with its symlinks resolved, or undefined when HOME is unset or not there. */
async function realHome(): Promise<string | undefined> {
  let home: string | undefined;
  try {
    home = Deno.env.get("HOME") || undefined;
  } catch {
    return undefined;
  }
  return home === undefined ? undefined : await realPathOrUndefined(home);
}

/**
 * Why the folder `real` (symlinks resolved) may never be a workspace, or undefined when it may:
 * the file system's root, the user's `home` itself, a system folder or one inside it, a folder
 * of everyone's files (`/home`, `/var`, `/tmp`). A session's tools would reach every file there.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { refusedWorkspace } from "./mod.ts";
 * assert.equal(refusedWorkspace("/", "/home/ada"), "it is the root of the file system");
 * assert.equal(refusedWorkspace("/home/ada", "/home/ada"), "it is your home folder");
 * assert.equal(refusedWorkspace("/etc/ssh", "/home/ada"), "it is a system folder (/etc)");
 * assert.equal(refusedWorkspace("/home/ada/src/app", "/home/ada"), undefined);
 * assert.equal(refusedWorkspace("/tmp/build", undefined), undefined);
 * ```
 */
export function refusedWorkspace(real: string, home: string | undefined): string | undefined {
  const path = resolve(real);
  if (dirname(path) === path) return "it is the root of the file system";
  if (home !== undefined && path === resolve(home)) return "it is your home folder";
  const system = SYSTEM_TREES.find((tree) => path === tree || path.startsWith(`${tree}/`));
  if (system !== undefined) return `it is a system folder (${system})`;
  if (SHARED_FOLDERS.includes(path)) {
    return "it holds the files of the whole system or of every user";
  }
  return undefined;
}

/** A folder the tools are confined to. */
export class Workspace {
  /** The folder as given, absolute. */
  readonly root: string;
  /** The folder with every symlink resolved. */
  readonly realRoot: string;

  private constructor(root: string, realRoot: string) {
    this.root = root;
    this.realRoot = realRoot;
  }

  /**
   * Opens a workspace folder, refusing one a session's tools must never roam (see
   * {@linkcode refusedWorkspace}).
   *
   * @throws {Deno.errors.NotFound} when the folder does not exist
   * @throws {TurnlogError} (`workspace`) when it is not a folder, or is refused
   */
  static async open(dir: string): Promise<Workspace> {
    const root = resolve(dir);
    const realRoot = await Deno.realPath(root);
    const info = await Deno.stat(realRoot);
    if (!info.isDirectory) {
      throw new TurnlogError("workspace", `Workspace ${root} is not a directory`);
    }
    const refused = refusedWorkspace(realRoot, await realHome());
    if (refused !== undefined) {
      throw new TurnlogError(
        "workspace",
        `Workspace ${root} is refused: ${refused}; give the project's own folder with --workspace`,
      );
    }
    return new Workspace(root, realRoot);
  }

  /**
   * Resolves a path a tool was given to an absolute path inside the workspace. A path that
   * does not exist yet (a file to write) is checked through its nearest existing folder.
   *
   * @throws {OutsideWorkspaceError} when the path, or where its symlinks lead, is outside
   */
  async resolve(path: string): Promise<string> {
    const shown = JSON.stringify(path);
    if (path.includes("\0")) throw new OutsideWorkspaceError(`Path ${shown} contains a NUL byte`);
    const absolute = isAbsolute(path) ? resolve(path) : resolve(this.realRoot, path);
    const lexicallyInside = isInside(this.realRoot, absolute) || isInside(this.root, absolute);
    if (!lexicallyInside) {
      throw new OutsideWorkspaceError(
        `Path ${shown} is outside the workspace ${this.root}; only paths inside it can be used`,
      );
    }
    // Follow symlinks: the real path of the target, or of its nearest existing ancestor.
    let probe = absolute;
    let real = await realPathOrUndefined(probe);
    while (real === undefined && dirname(probe) !== probe) {
      probe = dirname(probe);
      real = await realPathOrUndefined(probe);
    }
    if (real === undefined || !isInside(this.realRoot, real)) {
      throw new OutsideWorkspaceError(
        `Path ${shown} leads outside the workspace ${this.root} through a symlink (to ${
          real ?? "an unknown place"
        }); refused`,
      );
    }
    return probe === absolute ? real : join(real, relative(probe, absolute));
  }

  /** The workspace-relative form of an absolute path inside it ("." for the root). */
  relativePath(absolute: string): string {
    const rel = relative(this.realRoot, absolute);
    return rel === "" ? "." : rel.split(sep).join("/");
  }
}
