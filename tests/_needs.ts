/**
 * A test that needs something this machine may lack (the shared corpus, Chromium, Jupyter,
 * script(1)): reported by the runner as ignored when it is missing, its name saying what is
 * missing, instead of a green pass that ran nothing.
 */

/**
 * A test's name and `ignore` flag: `name` as it is when nothing is missing; else ignored, with
 * `[ignored: <missing>]` added.
 */
export function needing(
  name: string,
  missing: string | undefined,
): { name: string; ignore: boolean } {
  return missing === undefined
    ? { name, ignore: false }
    : { name: `${name} [ignored: ${missing}]`, ignore: true };
}
