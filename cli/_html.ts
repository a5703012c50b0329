/**
 * `inspect --html <file>`: the session page written as it is rendered, one piece at a time,
 * to a file (through a temporary file renamed into place, so nobody opens half a page) or,
 * for `-`, to stdout.
 *
 * @module
 */
import { basename, dirname, join, resolve } from "node:path";
import { type InspectReport, sessionPageChunks } from "../src/html/mod.ts";

export { SESSION_PAGE_INSPECTION } from "../src/html/mod.ts";
import { formatBytes } from "../src/text/mod.ts";
import { UsageError } from "./_args.ts";

/** Options of {@linkcode writeHtmlPage}. */
export interface HtmlPageOptions {
  /** Whole texts in the page instead of shortened ones (`--full`). */
  full?: boolean;
  /** The subagents' reports, shown inline (`inspectSubagents`). */
  subagents?: ReadonlyMap<string, InspectReport>;
}

/** Writes `chunks` to `sink`; returns the bytes written. */
async function copy(
  chunks: Iterable<Uint8Array>,
  sink: { write(p: Uint8Array): Promise<number> },
) {
  let bytes = 0;
  for (const chunk of chunks) {
    let written = 0;
    while (written < chunk.length) written += await sink.write(chunk.subarray(written));
    bytes += chunk.length;
  }
  return bytes;
}

/** The bytes written, or undefined when the reader went away (`| head`): not our error. */
async function toStdout(chunks: Iterable<Uint8Array>): Promise<number | undefined> {
  try {
    return await copy(chunks, Deno.stdout);
  } catch (error) {
    if (error instanceof Deno.errors.BrokenPipe) return undefined;
    throw error;
  }
}

/**
 * Refuses an `--html` target that is surely a mistake (a session file's name, a folder)
 * before the session is read.
 *
 * @throws {UsageError} naming the target and what to give instead
 */
export async function checkHtmlTarget(target: string, sessionPath: string): Promise<void> {
  if (target === "-") return;
  if (target.endsWith(".jsonl") || resolve(target) === resolve(sessionPath)) {
    throw new UsageError(
      `Refusing to write the page to ${target}: that is a session file's name; name an .html file`,
    );
  }
  const info = await Deno.stat(target).catch(() => undefined);
  if (info?.isDirectory) {
    throw new UsageError(
      `--html ${target} is a folder: name the file, e.g. ${join(target, "session.html")}`,
    );
  }
}

async function toFile(chunks: Iterable<Uint8Array>, target: string): Promise<number> {
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    using file = await Deno.open(temporary, { write: true, createNew: true });
    const bytes = await copy(chunks, file);
    await Deno.rename(temporary, target);
    return bytes;
  } catch (error) {
    await Deno.remove(temporary).catch(() => {});
    throw error;
  }
}

/**
 * Writes the session page of `report` to `target` (`-`: stdout), streaming, and says on
 * stderr where it went and how large it is. Check the target first with
 * {@linkcode checkHtmlTarget}.
 */
export async function writeHtmlPage(
  report: InspectReport,
  target: string,
  options: HtmlPageOptions = {},
): Promise<void> {
  const page = () =>
    sessionPageChunks(report, {
      ...(options.full ? { textChars: Number.MAX_SAFE_INTEGER } : {}),
      ...(options.subagents ? { subagents: options.subagents } : {}),
    });
  if (target === "-") {
    const bytes = await toStdout(page());
    if (bytes !== undefined) {
      console.error(`turnlog inspect: wrote the page to stdout (${formatBytes(bytes)})`);
    }
    return;
  }
  const bytes = await toFile(page(), target);
  console.error(
    `turnlog inspect: wrote ${target} (${formatBytes(bytes)}); open it in a browser`,
  );
}
