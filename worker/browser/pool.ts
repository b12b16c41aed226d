import pLimit from 'p-limit';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';
import { type PolicyProxy, startPolicyProxy } from '../../shared/net/policy-proxy.ts';
import type { UrlPolicy } from '../../shared/net/url-policy.ts';
import type { BrowserPool, BrowserSession } from '../../shared/scan/browser.ts';
import { BrowserError, requireChromium, resolverLockArg, STANDARD_ARGS } from './chromium.ts';
import type { MemoryGuard } from './memory.ts';
import { killGroup, killGroupAndWait } from './processes.ts';

// One Chromium per worker process, launched lazily and relaunched after a crash; each scan gets a
// session: its own policy proxy (so blocked requests are attributed to that scan) and fresh
// contexts, all closed when the work ends or its deadline fires. The browser itself is launched
// behind a policy proxy too, so a context created without one still cannot leave the policy.

export interface BrowserPoolOptions {
  policy: UrlPolicy;
  concurrency?: number; // sessions at once; default 2
  chromiumPath?: string; // default: findChromium()
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

export function createBrowserPool(opts: BrowserPoolOptions): BrowserPool {
  const limit = pLimit(opts.concurrency ?? 2);
  const launchTimeoutMs = opts.launchTimeoutMs ?? 30_000;
  let browser: Browser | null = null;
  let launching: Promise<Browser> | null = null;
  let launchProxy: PolicyProxy | null = null;
  let closed = false;
  let launches = 0;
  let sessionsInUse = 0;
  let contextsOpen = 0;
  const pids = new Set<number>();
  const active = new Set<AbortController>();
  // Sessions running on each browser, so one retired over the budget is closed by its last session.
  const sessionsOn = new Map<Browser, number>();
  const retired = new Set<Browser>();

  // Last-resort cleanup: synchronous kills when the process exits without calling close(). A
  // process ended by a signal (SIGTERM without a handler, SIGKILL) runs no handlers, but then
  // Chromium exits by itself: Playwright drives it over a pipe, and the pipe closes with us.
  const killAllSync = () => {
    for (const pid of pids) killGroup(pid);
  };
  process.on('exit', killAllSync);

  async function launch(): Promise<Browser> {
    const executablePath = opts.chromiumPath ?? requireChromium().path;
    launchProxy ??= await startPolicyProxy(opts.policy);
    const b = await chromium.launch({
      executablePath,
      args: [...STANDARD_ARGS, resolverLockArg(launchProxy.url)], // Playwright adds the proxy flags
      proxy: { server: launchProxy.url, bypass: '<-loopback>' },
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: launchTimeoutMs,
    });
    launches++;
    const pid = await browserPid(b);
    if (pid) pids.add(pid);
    b.on('disconnected', () => {
      if (browser === b) browser = null;
      // Crash or close: take any remaining helper processes with it.
      if (pid) {
        killGroup(pid);
        pids.delete(pid);
      }
    });
    if (closed) {
      await b.close().catch(() => {});
      throw new BrowserError('browser_closed', 'The browser pool is closed.');
    }
    browser = b;
    return b;
  }

  function getBrowser(): Promise<Browser> {
    if (browser?.isConnected()) return Promise.resolve(browser);
    launching ??= launch().finally(() => {
      launching = null;
    });
    return launching;
  }

  // A browser that a session left over the memory budget (the guard only aborts while work runs;
  // after a render of 50,000 links ends on its deadline, Chromium can stay above the budget with
  // its contexts closed) is never handed out again and ends when its last session does.
  async function endIfRetired(b: Browser, pid: number | null): Promise<void> {
    if (!retired.has(b) || (sessionsOn.get(b) ?? 0) > 0) return;
    retired.delete(b);
    await Promise.race([b.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000).unref())]);
    if (pid) await killGroupAndWait(pid);
  }

  async function runSession<T>(outer: AbortSignal, fn: (s: BrowserSession) => Promise<T>): Promise<T> {
    if (outer.aborted) throw deadlineError(outer);
    // Over the memory budget the session is aborted like a deadline, with its own error.
    const overBudget = new AbortController();
    const signal = AbortSignal.any([outer, overBudget.signal]);
    let unwatch = () => {};
    sessionsInUse++;
    const contexts = new Set<BrowserContext>();
    const closeContexts = () => Promise.all([...contexts].map((c) => c.close().catch(() => {})));
    signal.addEventListener('abort', closeContexts, { once: true });
    let proxy: PolicyProxy | null = null;
    let onBrowser: Browser | null = null; // for the finally block
    let pid: number | null = null;
    try {
      const b = await untilAborted(signal, getBrowser());
      onBrowser = b;
      sessionsOn.set(b, (sessionsOn.get(b) ?? 0) + 1);
      const watched = opts.memory ? await browserPid(b) : null;
      pid = watched;
      if (watched && opts.memory) {
        unwatch = opts.memory.watch(watched, (err) => {
          overBudget.abort(err);
          if (browser === b) browser = null; // never handed to another session
          // Closing contexts frees memory only slowly, if at all: end the browser (every session on
          // it is being aborted too); the next session launches a fresh one.
          killGroup(watched);
        });
      }
      proxy = await startPolicyProxy(opts.policy);
      const { url: proxyUrl, blocked } = proxy;
      const session: BrowserSession = {
        blocked,
        signal,
        browserVersion: b.version(),
        async newContext(options = {}) {
          if (signal.aborted) throw deadlineError(signal);
          const c = await b.newContext({
            ...options,
            serviceWorkers: 'block',
            acceptDownloads: false,
            proxy: { server: proxyUrl, bypass: '<-loopback>' },
          });
          contexts.add(c);
          contextsOpen++;
          c.once('close', () => {
            contexts.delete(c);
            contextsOpen--;
          });
          if (signal.aborted) {
            await c.close().catch(() => {});
            throw deadlineError(signal);
          }
          return c;
        },
      };
      return await untilAborted(signal, fn(session));
    } finally {
      unwatch();
      signal.removeEventListener('abort', closeContexts);
      await closeContexts();
      await proxy?.close();
      const b = onBrowser;
      if (b) {
        sessionsOn.set(b, (sessionsOn.get(b) ?? 1) - 1);
        if (pid && opts.memory && b.isConnected()) {
          const usedMb = await opts.memory.overBudget([pid]);
          if (usedMb !== null) {
            opts.memory.retirements++;
            if (browser === b) browser = null;
            retired.add(b);
          }
        }
        if ((sessionsOn.get(b) ?? 0) === 0) sessionsOn.delete(b);
        await endIfRetired(b, pid);
      }
      sessionsInUse--;
    }
  }

  return {
    async use(sessionOpts, fn) {
      if (closed) throw new BrowserError('browser_closed', 'The browser pool is closed.');
      const own = new AbortController();
      const signals = [own.signal, AbortSignal.timeout(sessionOpts.timeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS)];
      if (sessionOpts.signal) signals.push(sessionOpts.signal);
      const signal = AbortSignal.any(signals);
      active.add(own);
      try {
        // The wait for a free slot counts against the deadline too.
        return await untilAborted(
          signal,
          limit(() => runSession(signal, fn)),
        );
      } finally {
        active.delete(own);
      }
    },

    stats: {
      get launches() {
        return launches;
      },
      get sessionsInUse() {
        return sessionsInUse;
      },
      get contextsOpen() {
        return contextsOpen;
      },
      get queued() {
        return limit.pendingCount;
      },
      get browserRunning() {
        return browser?.isConnected() ?? false;
      },
      get pids() {
        return [...pids];
      },
    },

    async close() {
      closed = true;
      for (const c of active) c.abort(new BrowserError('browser_closed', 'The browser pool was closed.'));
      const b = browser ?? (await launching?.catch(() => null)) ?? null;
      browser = null;
      if (b) {
        const graceful = b.close().catch(() => {});
        await Promise.race([graceful, new Promise((r) => setTimeout(r, 5000).unref())]);
      }
      await Promise.all([...pids].map((pid) => killGroupAndWait(pid)));
      pids.clear();
      await launchProxy?.close();
      launchProxy = null;
      process.off('exit', killAllSync);
    },
  };
}
