/**
 * The small workspace the demo and the example sessions work in: a few files for the
 * embedded model's list, read and search rules to find.
 *
 * @module
 */
import { join } from "node:path";

/** The files of the demo workspace, by path relative to it. */
export const DEMO_FILES: Readonly<Record<string, string>> = {
  "README.md": "# Demo project\n\nA tiny workspace for the turnlog demo.\n",
  "notes.txt": "Ship the resume feature.\nTODO: write the release notes.\n",
  "src/main.ts": '// TODO: handle errors\nconsole.log("hello from the demo");\n',
};

/** Writes {@linkcode DEMO_FILES} into `dir`, making folders as needed. */
export async function writeDemoWorkspace(dir: string): Promise<void> {
  for (const [path, content] of Object.entries(DEMO_FILES)) {
    await Deno.mkdir(join(dir, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir, path), content);
  }
}
