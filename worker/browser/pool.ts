import { accessSync, constants } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { type PolicyProxy, startPolicyProxy } from '../../shared/net/policy-proxy.ts';
import type { UrlPolicy } from '../../shared/net/url-policy.ts';
import type { BrowserPool, BrowserSession, SessionOptions } from '../../shared/scan-engine/browser.ts';
import { BrowserError, requireChromium, resolverLockArg, STANDARD_ARGS } from './chromium.ts';
import type { MemoryGuard } from './memory.ts';
import { BACKGROUND_NICE, killGroup, killGroupAndWait, lowerPriority } from './processes.ts';

// One Chromium per worker process, launched lazily and relaunched after a crash; each scan gets a
// session: its own policy proxy (so blocked requests are attributed to that scan) and fresh
// contexts, all closed when the work ends or its deadline fires. The browser itself is launched
// behind a policy proxy too, so a context created without one still cannot leave the policy.
// Lighthouse runs in this same browser (worker/browser/lighthouse.ts): its child process connects
// to the browser's DevTools port on 127.0.0.1 inside a `useDevtools` session, so a full scan
// starts one Chromium, not two, and a worker keeps one warm across scans. Pages cannot reach that
// port: their traffic goes through the policy proxy, which refuses loopback unless
// SCAN_ALLOW_HOSTS names that very port.

/** A session for work that drives the browser over DevTools itself (Lighthouse's child process). */
export interface DevtoolsSession {
  /** The browser's DevTools port on 127.0.0.1. */
  port: number;
  /** This session's policy proxy: contexts made over DevTools send their traffic through it. */
  proxyUrl: string;
  signal: AbortSignal;
  /** Closes a browser context made over DevTools (a Lighthouse run killed before it could). */
  disposeContext(id: string): Promise<void>;
}

export interface WorkerBrowserPool extends BrowserPool {
  /**
   * Like `use`, outside the BROWSER_CONCURRENCY slots (Lighthouse runs one at a time beside the
   * renders), with the same deadline and memory watch.
   */
  useDevtools<T>(opts: SessionOptions, fn: (session: DevtoolsSession) => Promise<T>): Promise<T>;
}

export interface BrowserPoolOptions {
  policy: UrlPolicy;
  concurrency?: number; // sessions at once; default 2
  chromiumPath?: string; // CHROMIUM_PATH (config); unset: the system's Chromium or Playwright's
  launchTimeoutMs?: number; // default 30 s
  /** Watches the browser's memory during sessions (BROWSER_MEMORY_BUDGET_MB). */
  memory?: MemoryGuard;
}

const DEFAULT_SESSION_TIMEOUT_MS = 60_000;

function deadlineError(signal: AbortSignal): BrowserError {
  if (signal.reason instanceof BrowserError) return signal.reason;
  return new BrowserError('deadline_exceeded', 'Browser work did not finish before its deadline.', {
    cause: signal.reason,
  });
}

/** Rejects as soon as `signal` aborts; otherwise settles like `work`. */
function untilAborted<T>(signal: AbortSignal, work: Promise<T>): Promise<T> {
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(deadlineError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {}); // settles later, after its contexts were closed under it
      reject(deadlineError(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * The DevTools port Chromium picked for `--remote-debugging-port=0`: it writes it to
 * DevToolsActivePort in its profile (Playwright's temporary one, named on its command line).
 */
async function devtoolsPort(pid: number): Promise<number> {
  const args = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
  const profile = args.find((a) => a.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
  if (!profile)
    throw new BrowserError('lighthouse_failed', 'The browser has no profile to read its DevTools port from.');
  for (let i = 0; i < 100; i++) {
    const port = Number(
      (await readFile(`${profile}/DevToolsActivePort`, 'utf8').catch(() => '')).split('\n')[0],
    );
    if (port > 0) return port;
    await new Promise((r) => setTimeout(r, 20)); // written just after start-up
  }
  throw new BrowserError('lighthouse_failed', 'The browser did not report its DevTools port.');
}

async function browserPid(browser: Browser): Promise<number | null> {
  try {
    const cdp = await browser.newBrowserCDPSession();
    const info = (await cdp.send('SystemInfo.getProcessInfo')) as {
      processInfo: { type: string; id: number }[];
    };
    await cdp.detach().catch(() => {});
    return info.processInfo.find((p) => p.type === 'browser')?.id ?? null;
  } catch {
    return null;
  }
}

// Chromium starts through chromium-launcher.sh, at BACKGROUND_NICE and unable to raise any of
// its threads above it. Where the launcher cannot run (not Linux, or a checkout that lost its
// executable bit) Chromium starts directly and is reniced once launched, which its later
// priority changes undo in part.
const LAUNCHER = fileURLToPath(new URL('./chromium-launcher.sh', import.meta.url));
function launcherUsable(): boolean {
  if (process.platform !== 'linux') return false;
  try {
    accessSync(LAUNCHER, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function createBrowserPool(opts: BrowserPoolOptions): WorkerBrowserPool {
  const pool = new ChromiumPool(opts);
  return {
    use(sessionOpts, fn) {
      return pool.useWith(sessionOpts, true, fn);
    },

    useDevtools(sessionOpts, fn) {
      return pool.useWith(sessionOpts, false, async (s) =>
        fn({
          port: await s.port(),
          proxyUrl: s.proxyUrl,
          signal: s.signal,
          disposeContext: s.disposeContext,
        }),
      );
    },

    stats: {
      get launches() {
        return pool.launches;
      },
      get sessionsInUse() {
        return pool.sessionsInUse;
      },
      get contextsOpen() {
        return pool.contextsOpen;
      },
      get queued() {
        return pool.limit.pendingCount;
      },
      get browserRunning() {
        return pool.browser?.isConnected() ?? false;
      },
      get pids() {
        return [...pool.pids];
      },
    },

    close() {
      return pool.close();
    },
  };
}

/** What a session's work sees: the scan's BrowserSession plus what a DevTools session needs. */
type Session = BrowserSession & Omit<DevtoolsSession, 'port'> & { port(): Promise<number> };

/** The pool's browser, its sessions and the bookkeeping behind `stats` and `close`. */
class ChromiumPool {
  readonly limit: ReturnType<typeof pLimit>;
  /** The browser handed to new sessions; null until launched, after a crash or once retired. */
  browser: Browser | null = null;
  launches = 0;
  sessionsInUse = 0;
  contextsOpen = 0;
  /** Process groups of live browsers started by this pool. */
  readonly pids = new Set<number>();
  private launching: Promise<Browser> | null = null;
  private launchProxy: PolicyProxy | null = null;
  private closed = false;
  /** One controller per session in progress, aborted by close(). */
  private readonly active = new Set<AbortController>();
  // Sessions running on each browser, so one retired over the budget is closed by its last session.
  private readonly sessionsOn = new Map<Browser, number>();
  private readonly retired = new Set<Browser>();
  // The browser's DevTools port, read once per browser when Lighthouse first asks.
  private readonly ports = new WeakMap<Browser, Promise<number>>();

  // Last-resort cleanup: synchronous kills when the process exits without calling close(). A
  // process ended by a signal (SIGTERM without a handler, SIGKILL) runs no handlers, but then
  // Chromium exits by itself: Playwright drives it over a pipe, and the pipe closes with us.
  private readonly killAllSync = () => {
    for (const pid of this.pids) killGroup(pid);
  };

  constructor(private readonly opts: BrowserPoolOptions) {
    this.limit = pLimit(opts.concurrency ?? 2);
    process.on('exit', this.killAllSync);
  }

  /** Runs `fn` in a session under the caller's deadline; `slotted` sessions wait for a slot. */
  async useWith<T>(
    sessionOpts: SessionOptions,
    slotted: boolean,
    fn: (s: Session) => Promise<T>,
  ): Promise<T> {
    if (this.closed) throw new BrowserError('browser_closed', 'The browser pool is closed.');
    const own = new AbortController();
    const signals = [own.signal, AbortSignal.timeout(sessionOpts.timeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS)];
    if (sessionOpts.signal) signals.push(sessionOpts.signal);
    const signal = AbortSignal.any(signals);
    this.active.add(own);
    try {
      // The wait for a free slot counts against the deadline too.
      return await untilAborted(
        signal,
        slotted ? this.limit(() => this.runSession(signal, fn)) : this.runSession(signal, fn),
      );
    } finally {
      this.active.delete(own);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const c of this.active) c.abort(new BrowserError('browser_closed', 'The browser pool was closed.'));
    const b = this.browser ?? (await this.launching?.catch(() => null)) ?? null;
    this.browser = null;
    if (b) {
      const graceful = b.close().catch(() => {});
      await Promise.race([graceful, new Promise((r) => setTimeout(r, 5000).unref())]);
    }
    await Promise.all([...this.pids].map((pid) => killGroupAndWait(pid)));
    this.pids.clear();
    await this.launchProxy?.close();
    this.launchProxy = null;
    process.off('exit', this.killAllSync);
  }

  private getBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return Promise.resolve(this.browser);
    this.launching ??= this.launch().finally(() => {
      this.launching = null;
    });
    return this.launching;
  }

  /** Launches Chromium behind the pool's own policy proxy, at background priority. */
  private async launch(): Promise<Browser> {
    const { opts } = this;
    const executablePath = requireChromium({ CHROMIUM_PATH: opts.chromiumPath }).path;
    this.launchProxy ??= await startPolicyProxy(opts.policy);
    const viaLauncher = launcherUsable();
    const b = await chromium.launch({
      executablePath: viaLauncher ? LAUNCHER : executablePath,
      env: viaLauncher
        ? {
            ...process.env,
            SIGHTLINE_CHROMIUM_PATH: executablePath,
            SIGHTLINE_CHROMIUM_NICE: String(BACKGROUND_NICE),
          }
        : undefined,
      // Playwright adds the proxy flags; the DevTools port is Lighthouse's way in (see above).
      args: [...STANDARD_ARGS, resolverLockArg(this.launchProxy.url), '--remote-debugging-port=0'],
      proxy: { server: this.launchProxy.url, bypass: '<-loopback>' },
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: opts.launchTimeoutMs ?? 30_000,
    });
    this.launches++;
    const pid = await browserPid(b);
    if (pid) this.pids.add(pid);
    // Without the launcher: before its first page, so that renderers inherit it.
    if (pid && !viaLauncher) await lowerPriority(new Set([pid]));
    b.on('disconnected', () => {
      if (this.browser === b) this.browser = null;
      // Crash or close: take any remaining helper processes with it.
      if (pid) {
        killGroup(pid);
        this.pids.delete(pid);
      }
    });
    if (this.closed) {
      await b.close().catch(() => {});
      throw new BrowserError('browser_closed', 'The browser pool is closed.');
    }
    this.browser = b;
    return b;
  }

  /**
   * One session: the browser (launched if need be), a policy proxy of its own and the contexts
   * it opens, all closed when `fn` settles or the session is aborted (deadline, pool closed, or
   * the browser over its memory budget).
   */
  private async runSession<T>(outer: AbortSignal, fn: (s: Session) => Promise<T>): Promise<T> {
    if (outer.aborted) throw deadlineError(outer);
    // Over the memory budget the session is aborted like a deadline, with its own error.
    const overBudget = new AbortController();
    const signal = AbortSignal.any([outer, overBudget.signal]);
    let unwatch = () => {};
    this.sessionsInUse++;
    const contexts = new Set<BrowserContext>();
    const closeContexts = () => Promise.all([...contexts].map((c) => c.close().catch(() => {})));
    signal.addEventListener('abort', closeContexts, { once: true });
    let proxy: PolicyProxy | null = null;
    let onBrowser: Browser | null = null; // for the finally block
    let pid: number | null = null;
    try {
      const b = await untilAborted(signal, this.getBrowser());
      onBrowser = b;
      this.sessionsOn.set(b, (this.sessionsOn.get(b) ?? 0) + 1);
      ({ pid, unwatch } = await this.watchMemory(b, overBudget));
      proxy = await startPolicyProxy(this.opts.policy);
      return await untilAborted(signal, fn(this.session(b, pid, signal, proxy, contexts)));
    } finally {
      unwatch();
      signal.removeEventListener('abort', closeContexts);
      await closeContexts();
      await proxy?.close();
      if (onBrowser) await this.leaveBrowser(onBrowser, pid);
      this.sessionsInUse--;
    }
  }

  /**
   * With a memory guard: watches the browser's processes while the session runs (returns the
   * browser's pid, the guard's key). Over the budget the session is aborted and the browser ended.
   */
  private async watchMemory(
    b: Browser,
    overBudget: AbortController,
  ): Promise<{ pid: number | null; unwatch: () => void }> {
    const { memory } = this.opts;
    const pid = memory ? await browserPid(b) : null;
    if (!pid || !memory) return { pid, unwatch: () => {} };
    const unwatch = memory.watch(pid, (err) => {
      overBudget.abort(err);
      if (this.browser === b) this.browser = null; // never handed to another session
      // Closing contexts frees memory only slowly, if at all: end the browser (every session on
      // it is being aborted too); the next session launches a fresh one.
      killGroup(pid);
    });
    return { pid, unwatch };
  }

  /** The session object handed to the work: contexts made through it use the session's proxy. */
  private session(
    b: Browser,
    pid: number | null,
    signal: AbortSignal,
    proxy: PolicyProxy,
    contexts: Set<BrowserContext>,
  ): Session {
    const { url: proxyUrl, blocked } = proxy;
    return {
      blocked,
      signal,
      proxyUrl,
      browserVersion: b.version(),
      port: () => this.devtoolsPortOf(b, pid),
      async disposeContext(id) {
        const cdp = await b.newBrowserCDPSession();
        try {
          await cdp.send('Target.disposeBrowserContext', { browserContextId: id });
        } finally {
          await cdp.detach().catch(() => {});
        }
      },
      newContext: async (options = {}) => {
        if (signal.aborted) throw deadlineError(signal);
        const c = await b.newContext({
          ...options,
          serviceWorkers: 'block',
          acceptDownloads: false,
          proxy: { server: proxyUrl, bypass: '<-loopback>' },
        });
        contexts.add(c);
        this.contextsOpen++;
        c.once('close', () => {
          contexts.delete(c);
          this.contextsOpen--;
        });
        if (signal.aborted) {
          await c.close().catch(() => {});
          throw deadlineError(signal);
        }
        return c;
      },
    };
  }

  private devtoolsPortOf(b: Browser, pid: number | null): Promise<number> {
    let port = this.ports.get(b);
    if (!port) {
      const p = pid ?? browserPid(b).then((found) => found ?? Promise.reject(new Error('no browser pid')));
      port = Promise.resolve(p).then(devtoolsPort);
      port.catch(() => this.ports.delete(b));
      this.ports.set(b, port);
    }
    return port;
  }

  /**
   * A session leaves its browser. A browser the session left over the memory budget is retired:
   * never handed out again (the guard only aborts while work runs, and Chromium can stay above
   * the budget with its contexts closed), and ended when its last session leaves.
   */
  private async leaveBrowser(b: Browser, pid: number | null): Promise<void> {
    const { memory } = this.opts;
    this.sessionsOn.set(b, (this.sessionsOn.get(b) ?? 1) - 1);
    if (pid && memory && b.isConnected()) {
      const usedMb = await memory.overBudget([pid]);
      if (usedMb !== null) {
        memory.retirements++;
        if (this.browser === b) this.browser = null;
        this.retired.add(b);
      }
    }
    if ((this.sessionsOn.get(b) ?? 0) === 0) this.sessionsOn.delete(b);
    await this.endIfRetired(b, pid);
  }

  private async endIfRetired(b: Browser, pid: number | null): Promise<void> {
    if (!this.retired.has(b) || (this.sessionsOn.get(b) ?? 0) > 0) return;
    this.retired.delete(b);
    await Promise.race([b.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000).unref())]);
    if (pid) await killGroupAndWait(pid);
  }
}
