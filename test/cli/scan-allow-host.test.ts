import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SIGHTLINE_USER_AGENT } from '../../shared/net/user-agent.ts';
import { findChromium } from '../../worker/browser/chromium.ts';
import { skipUnlessBrowser } from '../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';
import { BIN } from '../helpers/processes.ts';

// `sightline scan --mode full --allow-host` (issue 30): the browser render and Lighthouse load the
// page through the same allowed hosts as the HTTP fetch, so the flag scores what SCAN_ALLOW_HOSTS
// scores; and a browser load that ends elsewhere than the fetch makes the scan partial: exit 1,
// saying why.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITE = path.join(CORPUS, 'static-sites', 'h5bp-boilerplate-dist');
const skip =
  skipUnlessBrowser(findChromium()) || (fs.existsSync(SITE) ? false : `corpus not found at ${SITE}`);

interface Report {
  partial: boolean;
  partialReasons?: Record<string, string>;
  results: Record<string, { dimensions: { id: string; score: number | null }[] }>;
  artifacts: { Rendered?: { document?: { status: number | null; proxy?: string } } };
}

function sightline(args: string[], env: Record<string, string> = {}) {
  const { SCAN_ALLOW_HOSTS: _, ...rest } = process.env;
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...rest, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (err += b));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, out, err })),
  );
}

const scores = (r: Report) =>
  Object.fromEntries(
    Object.entries(r.results).flatMap(([model, m]) => m.dimensions.map((d) => [`${model}/${d.id}`, d.score])),
  );

describe('sightline scan --mode full with --allow-host', { skip }, () => {
  let site: FixtureServer;
  let wall: FixtureServer;
  before(async () => {
    site = await startFixtureServer({ root: SITE });
    // A bot wall keyed on the user agent: the HTTP fetch gets the page, a browser gets 403.
    wall = await startFixtureServer({
      routes: {
        '/': (req, res) => {
          const ok = req.headers['user-agent'] === SIGHTLINE_USER_AGENT;
          res
            .writeHead(ok ? 200 : 403, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              ok
                ? '<!doctype html><html lang="en"><head><title>Shop</title></head><body><main><h1>Shop</h1><p>Things to buy.</p></main></body></html>'
                : '<!doctype html><title>Denied</title><p>Access denied.</p>',
            );
        },
      },
    });
  });
  after(async () => {
    await site?.close();
    await wall?.close();
  });

  it('scores a corpus site as SCAN_ALLOW_HOSTS does (every dimension within 2 points), rendered by the browser', async () => {
    const host = `127.0.0.1:${site.port}`;
    const viaFlag = await sightline(['scan', site.url, '--mode', 'full', '--allow-host', host, '--json']);
    const viaEnv = await sightline(['scan', site.url, '--mode', 'full', '--json'], {
      SCAN_ALLOW_HOSTS: host,
    });
    assert.equal(viaFlag.code, 0, viaFlag.err);
    assert.equal(viaEnv.code, 0, viaEnv.err);
    const flag = JSON.parse(viaFlag.out) as Report;
    const env = JSON.parse(viaEnv.out) as Report;
    assert.equal(flag.partial, false, JSON.stringify(flag.partialReasons));
    assert.deepEqual(flag.artifacts.Rendered?.document, { status: 200 });
    const a = scores(flag);
    const b = scores(env);
    assert.deepEqual(Object.keys(a), Object.keys(b));
    for (const k of Object.keys(a))
      assert.ok(
        Math.abs((a[k] ?? 0) - (b[k] ?? 0)) <= 2,
        `${k}: --allow-host ${a[k]}, SCAN_ALLOW_HOSTS ${b[k]}`,
      );
  });

  it('a render answered otherwise than the HTTP fetch makes the scan partial: exit 1, saying why', async () => {
    const r = await sightline(['scan', wall.url, '--mode', 'full', '--allow-host', `127.0.0.1:${wall.port}`]);
    assert.equal(r.code, 1, r.out + r.err);
    assert.match(r.err, /partial scan: Rendered/);
    assert.match(r.err, /Rendered: The browser's load of the page answered HTTP 403, the HTTP fetch 200/);
    assert.match(r.err, /--allow-partial/);
  });
});
