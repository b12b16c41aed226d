import assert from 'node:assert/strict';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { freePort } from '../../shared/db/embedded.ts';
import { findChromium } from '../../worker/browser/chromium.ts';
import { startTestApi, type TestApi } from './api.ts';
import { type SmtpServer, startSmtpServer } from './smtp-server.ts';
import { startTestStack } from './stack.ts';

// What a test that walks the web face in real Chromium starts: the service (with a real worker
// when its jobs are part of the walk), a loopback SMTP server its mail goes to, and Chromium,
// whose pages open at a phone's width on the service's origin.

/** The phone width every console page must fit without scrolling sideways. */
export const PHONE_WIDTH = 375;

/** The Chromium the tests drive (undefined: none installed; see skipUnlessBrowser). */
export const chromiumPath = findChromium()?.path;

export interface BrowserStack {
  t: TestApi;
  smtp: SmtpServer;
  browser: Browser;
  /** A new browser context at PHONE_WIDTH whose relative URLs go to the service. */
  phone(): Promise<BrowserContext>;
  close(): Promise<void>;
}

/**
 * Starts SMTP, the service (mailing through it; with `worker`, a real worker too, on a port fixed
 * before it starts so the worker's links and scans reach this API) and Chromium.
 */
export async function startBrowserStack(
  env: Record<string, string>,
  opts: { worker: boolean },
): Promise<BrowserStack> {
  const smtp = await startSmtpServer();
  let t: TestApi | undefined;
  try {
    const withMail = { SMTP_URL: smtp.url, ...env };
    t = opts.worker
      ? await startTestStack({ PORT: String(await freePort()), ...withMail })
      : await startTestApi(withMail);
    const browser = await chromium.launch({
      executablePath: chromiumPath,
      args: ['--no-sandbox', '--disable-gpu'],
    });
    const api = t;
    return {
      t: api,
      smtp,
      browser,
      phone: () => browser.newContext({ viewport: { width: PHONE_WIDTH, height: 800 }, baseURL: api.url }),
      async close() {
        await browser.close();
        await api.close();
        await smtp.close();
      },
    };
  } catch (err) {
    // What started is stopped, so a failed start does not keep the test process alive.
    await t?.close();
    await smtp.close();
    throw err;
  }
}

/** Nothing on the page scrolls sideways at a phone's width. */
export async function assertFitsPhone(page: Page): Promise<void> {
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= PHONE_WIDTH, `${page.url()} is ${width}px wide at ${PHONE_WIDTH}px`);
}
