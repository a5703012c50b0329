/**
 * A Gemini CLI session moved with its project (`restore --cwd`): Gemini files a project's
 * sessions under `tmp/<slug>/chats/`, the slug the one its registry (`projects.json` beside
 * `tmp/`) gives the project's path, else the folder whose ownership marker
 * (`tmp/<slug>/.project_root`) names the path, else a new slug from the path's last name
 * (lower case, every other character `-`, `-1`, `-2` ... when taken); Gemini then finds the
 * marker and takes the slug as the project's. The metadata line's `projectHash` is the sha256
 * of the path.
 *
 * @module
 */
import { basename, join } from "../../_path.ts";
import type { Relocation } from "../_relocate.ts";
import { str } from "../_line.ts";
import { sha256Hex } from "../../io/mod.ts";

const MARKER = ".project_root";

function slugify(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]/g, "-").replace(/-+/g, "-").replace(/^-|-$/g, "") ||
    "project";
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await Deno.readTextFile(path);
  } catch {
    return undefined;
  }
}

/** The slug Gemini CLI files the sessions of the project at `cwd` under, in the home of `root`. */
export async function geminiProjectSlug(root: string, cwd: string): Promise<string> {
  const registry = await readText(join(root, "..", "projects.json"));
  if (registry !== undefined) {
    try {
      const known = JSON.parse(registry)?.projects?.[cwd];
      if (typeof known === "string") return known;
    } catch {
      // A registry that does not parse: Gemini rewrites it; the markers tell.
    }
  }
  const base = slugify(basename(cwd) || "project");
  for (let counter = 0;; counter++) {
    const slug = counter === 0 ? base : `${base}-${counter}`;
    const owner = await readText(join(root, slug, MARKER));
    if (owner === undefined || owner.trim() === cwd) return slug;
  }
}

/** Gemini CLI's relocation: the project's slug folder and the metadata's `projectHash`. */
export const geminiRelocation: Relocation = {
  async place(rel, cwd, root) {
    const [, ...rest] = rel.split("/");
    return [await geminiProjectSlug(root, cwd), ...rest].join("/");
  },
  markers(rel, cwd) {
    return [{ rel: `${rel.split("/")[0]}/${MARKER}`, text: cwd }];
  },
  line(value, cwd) {
    if (typeof value.projectHash !== "string") return [];
    const hash = sha256Hex(cwd);
    if (value.projectHash === hash) return [];
    value.projectHash = hash;
    return ["projectHash"];
  },
  markedBy: ['"projectHash"'],
  cwdOf: (value) => str(value, "cwd"),
};
