import { type ChromiumInstall, findChromium } from './find-chromium.mjs';

export { type ChromiumInstall, findChromium };

/** Thrown by the browser layer; `code` is what a gatherer error carries. */
export class BrowserError extends Error {
  constructor(
    readonly code:
      | 'chromium_not_found'
      | 'deadline_exceeded'
      | 'browser_closed'
      | 'lighthouse_failed'
      | 'memory_budget_exceeded',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'BrowserError';
  }
}

/** CHROMIUM_PATH as configured (shared/config.ts); unset means search the usual places. */
export type ChromiumSetting = { CHROMIUM_PATH?: string };

export function chromiumNotFound(env: ChromiumSetting): BrowserError {
  const detail = env.CHROMIUM_PATH?.trim()
    ? `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file.`
    : 'No Chromium found (CHROMIUM_PATH, /usr/bin/chromium, chromium-browser, google-chrome, Playwright).';
  return new BrowserError(
    'chromium_not_found',
    `${detail} Full-mode scans need one: run \`npm run setup\` (installs Debian's chromium as root) or set CHROMIUM_PATH. Quick scans work without it.`,
  );
}

/** The installed Chromium, or a chromium_not_found error. */
export function requireChromium(env: ChromiumSetting): ChromiumInstall {
  const found = findChromium(env);
  if (!found) throw chromiumNotFound(env);
  return found;
}

/**
 * Flags for every Chromium we start. No sandbox: we run as a service user, often as root in a
 * container where the setuid sandbox is unavailable; isolation comes from the policy proxy and
 * a throwaway profile. (Debian's build always starts a crashpad handler outside our process group;
 * it exits by itself when its browser is gone. --disable-crashpad-for-testing would avoid it but
 * crashes the network service.)
 */
export const STANDARD_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage', // containers often mount a 64 MB /dev/shm
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-quic', // QUIC is UDP, which an HTTP proxy cannot carry
  '--disable-breakpad',
  '--disable-domain-reliability',
  '--disable-client-side-phishing-detection',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  // A headless page counts as hidden: without these, its timers and rendering get throttled,
  // which skews Lighthouse timings (chrome-launcher, which the Lighthouse CLI uses, sets them too).
  '--disable-renderer-backgrounding',
  '--disable-background-timer-throttling',
  '--disable-backgrounding-occluded-windows',
  '--disable-ipc-flooding-protection',
  '--disable-hang-monitor',
  '--disable-component-extensions-with-background-pages',
  '--metrics-recording-only',
  '--force-fieldtrials=*BackgroundTracing/default/',
  '--password-store=basic',
  // A page's JavaScript heap is capped (V8 fails the page rather than the machine); the rest of
  // Chromium's memory is watched against BROWSER_MEMORY_BUDGET_MB (worker/browser/memory.ts).
  '--js-flags=--max-old-space-size=512',
  // WebRTC would otherwise send UDP (STUN) around the proxy.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
];

// Chromium keeps only the last --disable-features, so STANDARD_ARGS holds none: Playwright passes
// its own, which one here would replace.

/**
 * Host resolution switched off except for the proxy's own address: anything that tried to
 * connect around the proxy (it resolves names itself) fails closed.
 */
export function resolverLockArg(proxyUrl: string): string {
  return `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${new URL(proxyUrl).hostname}`;
}
