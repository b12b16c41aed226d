import type { BrowserContext, BrowserContextOptions } from 'playwright-core';

// What the scan engine needs from a browser, declared here and implemented by the worker's runtime
// (worker/browser/): a pool of Chromium sessions and a Lighthouse runner. Shared code never starts
// a browser itself; the process that owns one hands it in as a BrowserProvider.

export interface SessionOptions {
  signal?: AbortSignal; // the scan's deadline
  timeoutMs?: number; // this session's own bound; default 60 s
}

export interface BrowserSession {
  /** A fresh context (service workers blocked, traffic through this session's policy proxy). */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** Targets the policy proxy refused during this session: URLs (http) or host:port (tunnels). */
  readonly blocked: readonly string[];
  /** Aborts when the session's deadline passes; its contexts are closed at that moment. */
  readonly signal: AbortSignal;
  readonly browserVersion: string;
}

export interface BrowserPoolStats {
  readonly launches: number;
  readonly sessionsInUse: number;
  readonly contextsOpen: number;
  readonly queued: number;
  readonly browserRunning: boolean;
  /** Process ids (= process group ids) of live browsers started by this pool. */
  readonly pids: readonly number[];
}

export interface BrowserPool {
  use<T>(opts: SessionOptions, fn: (session: BrowserSession) => Promise<T>): Promise<T>;
  readonly stats: BrowserPoolStats;
  /** Ends every session, closes the browser and kills anything of it that is left. */
  close(): Promise<void>;
}

/** The part of a Lighthouse report the child sends back (audit details are dropped there). */
export interface SlimLhr {
  lighthouseVersion: string;
  finalDisplayedUrl?: string;
  runtimeError?: { code: string; message: string };
  runWarnings?: string[];
  categories: Record<string, { id: string; title: string; score: number | null }>;
  audits: Record<
    string,
    {
      id: string;
      title: string;
      score: number | null;
      scoreDisplayMode: string;
      numericValue?: number;
      displayValue?: string;
    }
  >;
  timing: { total?: number };
}

export interface LighthouseRunOptions {
  signal?: AbortSignal; // the scan's deadline; also bounds the wait for our turn
  timeoutMs?: number; // hard bound of the run itself; default 90 s
}

export interface LighthouseRunner {
  run(url: string, opts?: LighthouseRunOptions): Promise<SlimLhr>;
}

/** The browser side of one process: its pool and its Lighthouse runner. */
export interface ScanBrowser {
  pool: BrowserPool;
  lighthouse: LighthouseRunner;
}

/** Made lazily by the caller on first use, so quick-only work never starts Chromium. */
export type BrowserProvider = () => ScanBrowser;
