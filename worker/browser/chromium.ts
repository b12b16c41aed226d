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

export function chromiumNotFound(env: NodeJS.ProcessEnv = process.env): BrowserError {
  const detail = env.CHROMIUM_PATH?.trim()
    ? `CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file.`
    : 'No Chromium found (CHROMIUM_PATH, /usr/bin/chromium, chromium-browser, google-chrome, Playwright).';
  return new BrowserError(
    'chromium_not_found',
    `${detail} Full-mode scans need one: run \`npm run setup\` (installs Debian's chromium as root) or set CHROMIUM_PATH. Quick scans work without it.`,
  );
}

/** The installed Chromium, or a chromium_not_found error. */
export function requireChromium(env: NodeJS.ProcessEnv = process.env): ChromiumInstall {
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

// Chromium keeps only the last --disable-features, so this list is not in STANDARD_ARGS:
// Playwright passes its own, which ours would replace. Chromium we start ourselves gets
// chrome-launcher's list, so our Lighthouse runs behave like the Lighthouse CLI's.
const DISABLED_FEATURES = [
  'Translate',
  'OptimizationHints',
  'MediaRouter',
  'DialMediaRouteProvider',
  'CalculateNativeWinOcclusion',
  'InterestFeedContentSuggestions',
  'CertificateTransparencyComponentUpdater',
  'AutofillServerCommunication',
  'PrivacySandboxSettings4',
  'RenderDocument',
];

/**
 * Host resolution switched off except for the proxy's own address: anything that tried to
 * connect around the proxy (it resolves names itself) fails closed.
 */
export function resolverLockArg(proxyUrl: string): string {
  return `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${new URL(proxyUrl).hostname}`;
}

/**
 * Proxy flags: every request, loopback included (`<-loopback>` removes Chromium's implicit
 * loopback bypass), goes through the policy proxy.
 */
export function proxyArgs(proxyUrl: string): string[] {
  return [`--proxy-server=${proxyUrl}`, '--proxy-bypass-list=<-loopback>', resolverLockArg(proxyUrl)];
}

/** Flags for a Chromium we spawn ourselves (Lighthouse): standard + proxy + a fresh profile. */
export function launchArgs(opts: { proxyUrl: string; userDataDir: string }): string[] {
  return [
    ...STANDARD_ARGS,
    `--disable-features=${DISABLED_FEATURES.join(',')}`,
    ...proxyArgs(opts.proxyUrl),
    `--user-data-dir=${opts.userDataDir}`,
  ];
}
