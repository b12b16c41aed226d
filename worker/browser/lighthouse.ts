import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import { startPolicyProxy } from '../../shared/net/policy-proxy.ts';
import type { UrlPolicy } from '../../shared/net/url-policy.ts';
import type { LighthouseRunner, SlimLhr } from '../../shared/scan/browser.ts';
import { BrowserError, launchArgs, requireChromium } from './chromium.ts';
import type { MemoryGuard } from './memory.ts';
import { killGroup, killGroupAndWait } from './processes.ts';

// Lighthouse runs in a child process, one at a time per worker process (its maintainers: never
// two runs on one machine at once; scale out instead), each with a hard deadline. The child and
// the Chromium it starts share a process group that we kill as a whole, so an expired or failed
// run leaves nothing behind. Traffic goes through a policy proxy started for the run.

const CHILD = fileURLToPath(new URL('./lighthouse-child.mjs', import.meta.url));
export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const DEFAULT_TIMEOUT_MS = 90_000;

export interface LighthouseRunnerOptions {
  policy: UrlPolicy;
  chromiumPath?: string; // default: findChromium()
  profileRoot?: string; // where throwaway profiles go; default the OS temp dir
  categories?: string[];
  /** Watches the run's processes (the child and its Chromium) against BROWSER_MEMORY_BUDGET_MB. */
  memory?: MemoryGuard;
}

// Module-level: one run at a time across every runner in this process.
const turn = pLimit(1);
const childGroups = new Set<number>();
let runs = 0;
let killed = 0;

export const lighthouseStats = {
  get running() {
    return turn.activeCount;
  },
  get queued() {
    return turn.pendingCount;
  },
  get runs() {
    return runs;
  },
  /** Runs ended by their deadline. */
  get killed() {
    return killed;
  },
};

// A worker exiting mid-run takes the run's process group with it.
process.on('exit', () => {
  for (const pgid of childGroups) killGroup(pgid);
});

function deadline(reason: unknown, what: string): BrowserError {
  if (reason instanceof BrowserError) return reason;
  return new BrowserError('deadline_exceeded', `${what} did not finish before its deadline.`, {
    cause: reason,
  });
}

interface ChildMessage {
  type: 'result' | 'error';
  lhr?: SlimLhr;
  message?: string;
}

async function runOnce(
  url: string,
  runner: LighthouseRunnerOptions,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<SlimLhr> {
  if (signal.aborted) throw deadline(signal.reason, 'Lighthouse');
  const chromiumPath = runner.chromiumPath ?? requireChromium().path;
  const proxy = await startPolicyProxy(runner.policy);
  const profile = await mkdtemp(path.join(runner.profileRoot ?? os.tmpdir(), 'sightline-lh-'));
  // detached: the child leads a new process group that its Chromium joins.
  const child = spawn(process.execPath, ['--max-old-space-size=768', CHILD], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  const pgid = child.pid;
  if (pgid) childGroups.add(pgid);
  runs++;
  try {
    return await new Promise<SlimLhr>((resolve, reject) => {
      let stderr = '';
      const timer = setTimeout(
        () => expire(new BrowserError('deadline_exceeded', `Lighthouse exceeded ${timeoutMs} ms.`)),
        timeoutMs,
      );
      const onAbort = () => expire(deadline(signal.reason, 'Lighthouse'));
      signal.addEventListener('abort', onAbort, { once: true });
      const unwatch = pgid && runner.memory ? runner.memory.watch(pgid, (err) => expire(err)) : () => {};
      const settle = () => {
        unwatch();
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      };
      function expire(err: BrowserError) {
        settle();
        killed++;
        if (pgid) killGroup(pgid);
        reject(err);
      }
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-4000);
      });
      child.on('message', (m: ChildMessage) => {
        settle();
        if (m.type === 'result' && m.lhr) resolve(m.lhr);
        else reject(new BrowserError('lighthouse_failed', `Lighthouse failed: ${m.message ?? 'no result'}`));
      });
      child.on('error', (err) => {
        settle();
        reject(
          new BrowserError('lighthouse_failed', `Could not start Lighthouse: ${err.message}`, { cause: err }),
        );
      });
      child.on('exit', (code, sig) => {
        settle();
        reject(
          new BrowserError(
            'lighthouse_failed',
            `Lighthouse process ended (${sig ?? code}) without a result. ${stderr.trim().slice(-1000)}`.trim(),
          ),
        );
      });
      child.send({
        url,
        chromiumPath,
        chromeFlags: launchArgs({ proxyUrl: proxy.url, userDataDir: profile }),
        userDataDir: profile,
        categories: runner.categories ?? LIGHTHOUSE_CATEGORIES,
        // Leave Lighthouse time to score a slow page before our hard deadline.
        maxWaitForLoad: Math.min(45_000, Math.max(5_000, Math.round(timeoutMs / 2))),
      });
    });
  } finally {
    if (pgid) {
      await killGroupAndWait(pgid);
      childGroups.delete(pgid);
    }
    await Promise.all([rm(profile, { recursive: true, force: true }).catch(() => {}), proxy.close()]);
  }
}

export function createLighthouseRunner(runner: LighthouseRunnerOptions): LighthouseRunner {
  return {
    run(url, opts = {}) {
      const signal = opts.signal ?? new AbortController().signal;
      const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      if (signal.aborted) return Promise.reject(deadline(signal.reason, 'Lighthouse'));
      const queued = turn(() => runOnce(url, runner, signal, timeoutMs));
      // Waiting for our turn counts against the scan's deadline; a run that never started is
      // skipped by runOnce's first line when its turn comes.
      return new Promise<SlimLhr>((resolve, reject) => {
        const onAbort = () => {
          queued.catch(() => {});
          reject(deadline(signal.reason, 'Lighthouse'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        queued.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
      });
    },
  };
}
