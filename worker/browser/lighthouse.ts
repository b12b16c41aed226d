import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pLimit from 'p-limit';
import type { LighthouseRunner, SlimLhr } from '../../shared/scan-engine/browser.ts';
import { BrowserError } from './chromium.ts';
import type { MemoryGuard } from './memory.ts';
import type { DevtoolsSession, WorkerBrowserPool } from './pool.ts';
import { killGroup, killGroupAndWait, lowerAutogroup, lowerPriority } from './processes.ts';

// Lighthouse runs in a child process that stays warm across runs (Node started and Lighthouse
// imported once, not per scan), one run at a time per worker process (its maintainers: never two
// runs on one machine at once; scale out instead), each with a hard deadline. It has no browser of
// its own: each run connects to the pool's Chromium (the one the render uses) inside a DevTools
// session and audits the page in a fresh browser context of it, with the session's policy proxy.
// A run that expires, or a child that dies or goes over the memory budget, is killed with its
// whole process group (it leads one) and its browser context closed; the next run starts a new
// child. Idle, the child keeps nobody alive: the parent's exit, even by SIGKILL, ends it.

const CHILD = fileURLToPath(new URL('./lighthouse-child.mjs', import.meta.url));
export const LIGHTHOUSE_CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const DEFAULT_TIMEOUT_MS = 90_000;

export interface LighthouseRunnerOptions {
  /** The browser Lighthouse drives (the render's). */
  pool: WorkerBrowserPool;
  categories?: string[];
  /** Watches the child's process group against BROWSER_MEMORY_BUDGET_MB (the pool watches the browser). */
  memory?: MemoryGuard;
}

// Module-level: one run at a time across every runner in this process.
const turn = pLimit(1);
const childGroups = new Set<number>();
let runs = 0;
let killed = 0;
let started = 0;

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
  /** Runs ended by their deadline (or the memory budget). */
  get killed() {
    return killed;
  },
  /** Child processes started: one per worker while runs succeed, plus one after each kill. */
  get childrenStarted() {
    return started;
  },
};

// A worker exiting takes its Lighthouse children with it.
process.on('exit', () => {
  for (const pgid of childGroups) killGroup(pgid);
});

function deadline(reason: unknown, what: string): BrowserError {
  if (reason instanceof BrowserError) return reason;
  return new BrowserError('deadline_exceeded', `${what} did not finish before its deadline.`, {
    cause: reason,
  });
}

type ChildMessage =
  | { type: 'context'; id: string }
  | { type: 'result'; lhr: SlimLhr }
  | { type: 'error'; message: string };

/** One warm child: spawned on demand, replaced when it dies or is killed. */
class WarmChild {
  readonly proc: ChildProcess;
  readonly pgid: number | undefined;
  private stderr = '';
  private exited = false;

  constructor() {
    // detached: the child leads a process group of its own, killed as a whole.
    this.proc = spawn(process.execPath, ['--max-old-space-size=768', CHILD], {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.pgid = this.proc.pid;
    if (this.pgid) childGroups.add(this.pgid);
    // Before it imports Lighthouse: its session's scheduler share below the worker's.
    if (this.pgid) lowerAutogroup(this.pgid);
    started++;
    this.proc.stderr?.setEncoding('utf8');
    this.proc.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-4000);
    });
    this.proc.on('error', () => {}); // reported by the run through 'exit' or its send failing
    this.proc.once('exit', () => {
      this.exited = true;
      if (this.pgid) childGroups.delete(this.pgid);
    });
    this.idle();
  }

  get alive(): boolean {
    return !this.exited && this.proc.connected;
  }

  /** Between runs the child and its channel do not keep this process running. */
  private idle(): void {
    this.proc.unref();
    (this.proc.channel as { unref?: () => void } | undefined)?.unref?.();
    (this.proc.stderr as { unref?: () => void } | null)?.unref?.();
  }

  private busy(): void {
    this.proc.ref();
    (this.proc.channel as { ref?: () => void } | undefined)?.ref?.();
  }

  /** One Lighthouse run in the session's browser; on abort the child is killed. */
  run(job: object, session: DevtoolsSession, memory: MemoryGuard | undefined): Promise<SlimLhr> {
    const { signal } = session;
    this.busy();
    let contextId: string | null = null;
    return new Promise<SlimLhr>((resolve, reject) => {
      const unwatch = this.pgid && memory ? memory.watch(this.pgid, (err) => fail(err, true)) : () => {};
      const onAbort = () => fail(deadline(signal.reason, 'Lighthouse'), true);
      const onMessage = (m: ChildMessage) => {
        if (m.type === 'context') contextId = m.id;
        else if (m.type === 'result') done(() => resolve(m.lhr));
        else fail(new BrowserError('lighthouse_failed', `Lighthouse failed: ${m.message}`), false);
      };
      const onExit = (code: number | null, sig: string | null) =>
        fail(
          new BrowserError(
            'lighthouse_failed',
            `Lighthouse process ended (${sig ?? code}) without a result. ${this.stderr.trim().slice(-1000)}`.trim(),
          ),
          false,
        );
      const settle = () => {
        unwatch();
        signal.removeEventListener('abort', onAbort);
        this.proc.off('message', onMessage);
        this.proc.off('exit', onExit);
      };
      const done = (finish: () => void) => {
        settle();
        this.idle();
        finish();
      };
      const fail = (err: BrowserError, kill: boolean) => {
        settle();
        if (kill) {
          killed++;
          this.kill();
          // Its page may still be loading in the shared browser.
          if (contextId) session.disposeContext(contextId).catch(() => {});
        }
        reject(err);
      };
      this.proc.on('message', onMessage);
      this.proc.once('exit', onExit);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      if (!this.alive) return onExit(this.proc.exitCode, this.proc.signalCode);
      if (this.pgid) void lowerPriority(new Set([this.pgid])); // its threads, as they are by now
      this.proc.send(job, (err) => {
        if (err)
          fail(new BrowserError('lighthouse_failed', `Could not reach Lighthouse: ${err.message}`), true);
      });
    });
  }

  kill(): void {
    this.exited = true; // never handed out again, even before its exit event
    if (this.pgid) killGroup(this.pgid);
  }

  async close(): Promise<void> {
    this.kill();
    if (this.pgid) {
      await killGroupAndWait(this.pgid);
      childGroups.delete(this.pgid);
    }
  }
}

export interface ClosableLighthouseRunner extends LighthouseRunner {
  /** The warm child's pid (= its process group), while it lives. */
  readonly pid: number | undefined;
  /** Ends the warm child (and waits until its process group is gone). */
  close(): Promise<void>;
}

export function createLighthouseRunner(runner: LighthouseRunnerOptions): ClosableLighthouseRunner {
  let child: WarmChild | null = null;
  let closed = false;
  const warm = () => {
    if (!child?.alive) child = new WarmChild();
    return child;
  };

  async function runOnce(url: string, signal: AbortSignal, timeoutMs: number): Promise<SlimLhr> {
    if (signal.aborted) throw deadline(signal.reason, 'Lighthouse');
    if (closed) throw new BrowserError('browser_closed', 'The Lighthouse runner is closed.');
    runs++;
    // Started (importing Lighthouse) while the browser launches or is found.
    const c = warm();
    const own = new AbortController();
    const timer = setTimeout(
      () => own.abort(new BrowserError('deadline_exceeded', `Lighthouse exceeded ${timeoutMs} ms.`)),
      timeoutMs,
    );
    try {
      return await runner.pool.useDevtools(
        { signal: AbortSignal.any([signal, own.signal]), timeoutMs: timeoutMs + 1000 },
        (session) =>
          c.run(
            {
              url,
              port: session.port,
              proxyUrl: session.proxyUrl,
              categories: runner.categories ?? LIGHTHOUSE_CATEGORIES,
              // Leave Lighthouse time to score a slow page before our hard deadline.
              maxWaitForLoad: Math.min(45_000, Math.max(5_000, Math.round(timeoutMs / 2))),
            },
            session,
            runner.memory,
          ),
      );
    } finally {
      clearTimeout(timer);
      // A run that ended any other way than with a result leaves no child to reuse.
      if (!c.alive) await c.close();
    }
  }

  return {
    run(url, opts = {}) {
      const signal = opts.signal ?? new AbortController().signal;
      const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      if (signal.aborted) return Promise.reject(deadline(signal.reason, 'Lighthouse'));
      const queued = turn(() => runOnce(url, signal, timeoutMs));
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
    get pid() {
      return child?.alive ? child.pgid : undefined;
    },
    async close() {
      closed = true;
      const c = child;
      child = null;
      await c?.close();
    },
  };
}
