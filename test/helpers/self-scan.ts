import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { PAGE_CSP } from '../../api/pages/layout.ts';
import { freePort } from '../../shared/db/embedded.ts';
import { call } from './api.ts';
import { type FixtureServer, type RouteHandler, startFixtureServer } from './fixture-server.ts';
import { startTestStack, type TestStack } from './stack.ts';

// What a test of Sightline's full scan (browser render, axe, Lighthouse) of its own pages starts:
// the service with a real worker allowed to scan it, and a snapshot host. Console pages need a
// session, which a scanner does not have, so the test takes their HTML signed in and the snapshot
// host serves it unchanged (same CSP, same /assets, fetched from the service) at the same path.
// Every page must score accessibility >= 95, mobile >= 90 and Lighthouse accessibility >= 95.

const ASSETS = ['app.css', 'app.js', 'uplot.js', 'uplot.css', 'favicon.svg'];

export interface SelfScan {
  t: TestStack;
  /** Serves `pages` at the paths named when it started. */
  snap: FixtureServer;
  /** The signed-in HTML of each snapshot path, set by the test before the scan. */
  pages: Map<string, string>;
  close(): Promise<void>;
}

/** Starts the snapshot host for `snapshots` (paths) and the service with a worker that may scan both. */
export async function startSelfScan(
  snapshots: string[],
  env: Record<string, string> = {},
): Promise<SelfScan> {
  const apiPort = await freePort();
  const apiOrigin = `http://127.0.0.1:${apiPort}`;
  const pages = new Map<string, string>();
  const routes: Record<string, RouteHandler> = {};
  for (const name of snapshots) {
    routes[name] = (_req, res: ServerResponse) =>
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': PAGE_CSP })
        .end(pages.get(name));
  }
  for (const asset of ASSETS) {
    routes[`/assets/${asset}`] = async (_req, res: ServerResponse) => {
      const r = await fetch(`${apiOrigin}/assets/${asset}`);
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await r.arrayBuffer()));
    };
  }
  const snap = await startFixtureServer({ routes });
  try {
    const t = await startTestStack({
      PORT: String(apiPort),
      SCAN_ALLOW_HOSTS: `127.0.0.1:${apiPort},127.0.0.1:${snap.port}`,
      ...env,
    });
    return {
      t,
      snap,
      pages,
      async close() {
        await t.close();
        await snap.close();
      },
    };
  } catch (err) {
    await snap.close();
    throw err;
  }
}

/**
 * Full-scans each URL with `key` in turn (with `reportOfFirst`, also the report page of the first
 * scan), prints each page's figures and fails naming every page below a bar.
 */
export async function assertOwnPagesPass(
  t: TestStack,
  key: string,
  urls: string[],
  opts: { reportOfFirst?: boolean } = {},
): Promise<void> {
  const targets = [...urls];
  const results: string[] = [];
  const failures: string[] = [];
  for (let i = 0; i < targets.length; i++) {
    const url = targets[i]!;
    const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(url)}&mode=full&wait=120`, { key });
    assert.equal(res.status, 200, `${url}: ${res.text}`);
    if (i === 0 && opts.reportOfFirst) targets.push(`${t.url}/r/${res.body.scanId}`);
    const dim = (id: string) => res.body.dimensions.find((d: { id: string }) => d.id === id);
    const a11y = dim('accessibility');
    const mobile = dim('mobile');
    const scan = await t.handle.db
      .selectFrom('scans')
      .select('artifacts')
      .where('id', '=', res.body.scanId)
      .executeTakeFirstOrThrow();
    const lh = (
      scan.artifacts as {
        Lighthouse?: {
          categories?: Record<string, number | null>;
          error?: { message: string };
          runtimeError?: string;
        };
      }
    ).Lighthouse;
    // Why Lighthouse gave no score: its run failed (a gather error) or the page failed in it.
    const lhWhy = lh?.error?.message ?? lh?.runtimeError;
    const lhA11y = Math.round((lh?.categories?.accessibility ?? 0) * 100);
    results.push(
      `${url}: accessibility ${a11y.score}, mobile ${mobile.score}, Lighthouse accessibility ${lhA11y}`,
    );
    if (a11y.score < 95) failures.push(`${url} accessibility ${a11y.score}: ${a11y.issues.join('; ')}`);
    if (mobile.score < 90) failures.push(`${url} mobile ${mobile.score}: ${mobile.issues.join('; ')}`);
    if (lhA11y < 95) failures.push(`${url} Lighthouse accessibility ${lhA11y}${lhWhy ? ` (${lhWhy})` : ''}`);
  }
  console.log(results.join('\n'));
  assert.deepEqual(failures, [], failures.join('\n'));
}
