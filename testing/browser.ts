/**
 * Headless Chromium for the browser tests: Debian's system Chromium driven by
 * `puppeteer-core` (no browser download of its own), with a fresh profile, no background
 * networking, and every page's requests, console errors and uncaught errors recorded.
 *
 * `puppeteer-core` works under the test task's permissions (`--allow-net=127.0.0.1` for the
 * DevTools socket); `playwright-core` was tried first and needs `--allow-all`, because it
 * reads `/proc/sys/fs/binfmt_misc/WSLInterop` when it loads.
 *
 * @module
 */
import puppeteer, { type Browser, type Page } from "puppeteer-core";

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
  /**
   * The page's document as an earlier response gave it (a page rendered before its file
   * changed): served for the URL opened, every later request going to the network.
   */
  document?: { body: string; headers: Record<string, string> };
}

/** A page opened by {@linkcode TestBrowser.open}, with what it did; dispose to close it. */
export interface OpenedPage extends AsyncDisposable {
  page: Page;
  /** Every request the page made, by URL, the document itself included. */
  requests: string[];
  /** Every response the page got, in order: its URL, status and headers (names lower case). */
  responses: { url: string; status: number; headers: Record<string, string> }[];
  /** The text of every console message of type error (a CSP violation is one). */
  consoleErrors: string[];
  /** Uncaught exceptions of the page's scripts. */
  pageErrors: string[];
  /** How many elements match `selector`. */
  count(selector: string): Promise<number>;
  /** An attribute of the first element matching `selector` (null: no such attribute). */
  attribute(selector: string, name: string): Promise<string | null>;
}

/** A running headless Chromium; dispose to close it and remove its profile. */
export interface TestBrowser extends AsyncDisposable {
  browser: Browser;
  /** Opens `url` in a new page and waits for it to load. */
  open(url: string, options?: OpenOptions): Promise<OpenedPage>;
}

/** How the browser is started. */
export interface StartOptions {
  /**
   * More Chromium flags, after {@linkcode CHROMIUM_ARGS}: e.g.
   * `--host-resolver-rules=MAP rebind.test 127.0.0.1`, a name that resolves to loopback.
   */
  args?: readonly string[];
}

/**
 * Starts the system Chromium headless with a fresh profile (`--user-data-dir` in a temp
 * folder). Start one per test file: a start takes about half a second.
 *
 * @throws {Error} when Chromium is missing ({@linkcode hasChromium} tells first)
 */
export async function startBrowser(options: StartOptions = {}): Promise<TestBrowser> {
  const profile = await Deno.makeTempDir({ prefix: "turnlog-chromium-" });
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      executablePath: chromiumPath(),
      headless: true,
      args: [...CHROMIUM_ARGS, ...options.args ?? [], `--user-data-dir=${profile}`],
      defaultViewport: { width: 1280, height: 900 },
      timeout: 20_000,
    });
  } catch (error) {
    await Deno.remove(profile, { recursive: true });
    throw error;
  }
  return {
    browser,
    async open(url, options = {}) {
      const page = await browser.newPage();
      const requests: string[] = [];
      const responses: OpenedPage["responses"] = [];
      const consoleErrors: string[] = [];
      const pageErrors: string[] = [];
      page.on("request", (request) => requests.push(request.url()));
      page.on("response", (response) => {
        responses.push({
          url: response.url(),
          status: response.status(),
          headers: response.headers(),
        });
      });
      page.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      page.on("pageerror", (error) => pageErrors.push(String(error)));
      if (options.viewport) await page.setViewport(options.viewport);
      await page.emulateMediaFeatures([
        { name: "prefers-color-scheme", value: options.colorScheme ?? "light" },
      ]);
      if (options.document) await serveOnce(page, url, options.document);
      await page.goto(url, { waitUntil: "load", timeout: 15_000 });
      return {
        page,
        requests,
        responses,
        consoleErrors,
        pageErrors,
        async count(selector) {
          return (await page.$$(selector)).length;
        },
        async attribute(selector, name) {
          return await page.$eval(selector, (node, name) => node.getAttribute(name), name);
        },
        async [Symbol.asyncDispose]() {
          await page.close();
        },
      };
    },
    async [Symbol.asyncDispose]() {
      await browser.close();
      await Deno.remove(profile, { recursive: true });
    },
  };
}

/** Serves `document` for the first request of `url`'s document, the rest from the network. */
async function serveOnce(
  page: Page,
  url: string,
  document: NonNullable<OpenOptions["document"]>,
): Promise<void> {
  let served = false;
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (!served && request.url() === url && request.resourceType() === "document") {
      served = true;
      request.respond({ status: 200, headers: document.headers, body: document.body });
    } else request.continue();
  });
}
