/**
 * Headless Chromium for the browser tests: Debian's system Chromium driven by
 * `playwright-core` (its own browser downloads are out of reach), with a fresh profile,
 * no background networking, and every page's requests, console errors and uncaught errors
 * recorded.
 *
 * @module
 */
import { type BrowserContext, chromium, type Page } from "playwright-core";

/** Where Chromium is looked for: `TURNLOG_CHROMIUM`, else Debian's `/usr/bin/chromium`. */
export function chromiumPath(): string {
  return Deno.env.get("TURNLOG_CHROMIUM") ?? "/usr/bin/chromium";
}

/** True when the Chromium of {@linkcode chromiumPath} is there. */
export function hasChromium(): boolean {
  try {
    return Deno.statSync(chromiumPath()).isFile;
  } catch {
    return false;
  }
}

/** The flags every test browser runs with: headless, quiet, and nothing fetched on its own. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
] as const;

/** How a page is shown. */
export interface OpenOptions {
  /** The viewport in CSS pixels. @default 1280 x 900 */
  viewport?: { width: number; height: number };
  /** The `prefers-color-scheme` the page sees. @default "light" */
  colorScheme?: "light" | "dark";
}

/** A page opened by {@linkcode TestBrowser.open}, with what it did; dispose to close it. */
export interface OpenedPage extends AsyncDisposable {
  page: Page;
  /** Every request the page made, by URL, the document itself included. */
  requests: string[];
  /** The text of every console message of type error (a CSP violation is one). */
  consoleErrors: string[];
  /** Uncaught exceptions of the page's scripts. */
  pageErrors: string[];
}

/** A running headless Chromium; dispose to close it and remove its profile. */
export interface TestBrowser extends AsyncDisposable {
  context: BrowserContext;
  /** Opens `url` in a new page and waits for it to load. */
  open(url: string, options?: OpenOptions): Promise<OpenedPage>;
}

/**
 * Starts the system Chromium headless with a fresh profile (`--user-data-dir` in a temp
 * folder). Start one per test file: a start takes about a second.
 *
 * @throws {Error} when Chromium is missing ({@linkcode hasChromium} tells first)
 */
export async function startBrowser(): Promise<TestBrowser> {
  const profile = await Deno.makeTempDir({ prefix: "turnlog-chromium-" });
  let context: BrowserContext;
  try {
    // Playwright passes the profile as `--user-data-dir` itself and refuses it among `args`.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS],
      viewport: { width: 1280, height: 900 },
      colorScheme: "light",
      timeout: 20_000,
    });
  } catch (error) {
    await Deno.remove(profile, { recursive: true });
    throw error;
  }
  return {
    context,
    async open(url, options = {}) {
      const page = await context.newPage();
      const requests: string[] = [];
      const consoleErrors: string[] = [];
      const pageErrors: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => pageErrors.push(error.message));
      if (options.viewport) await page.setViewportSize(options.viewport);
      await page.emulateMedia({ colorScheme: options.colorScheme ?? "light" });
      await page.goto(url, { waitUntil: "load", timeout: 15_000 });
      return {
        page,
        requests,
        consoleErrors,
        pageErrors,
        async [Symbol.asyncDispose]() {
          await page.close();
        },
      };
    },
    async [Symbol.asyncDispose]() {
      await context.close();
      await Deno.remove(profile, { recursive: true });
    },
  };
}
