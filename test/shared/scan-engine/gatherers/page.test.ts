import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { AppError } from '../../../../shared/errors.ts';
import { createUrlPolicy } from '../../../../shared/net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../../../../shared/net/user-agent.ts';
import { gatherPage } from '../../../../shared/scan-engine/gatherers/page.ts';
import type { GatherContext } from '../../../../shared/scan-engine/gatherers/types.ts';
import { type FixtureServer, selfSignedCert, startFixtureServer } from '../../../helpers/fixture-server.ts';

const ctx = (url: string, allow: string): GatherContext => ({
  url: new URL(url),
  policy: createUrlPolicy(allow),
  signal: AbortSignal.timeout(20_000),
  userAgent: SIGHTLINE_USER_AGENT,
});

describe('Page gatherer', () => {
  let site: FixtureServer;
  let secure: FixtureServer;
  let plain: FixtureServer; // redirects to `secure`
  before(async () => {
    secure = await startFixtureServer({
      tls: selfSignedCert(),
      routes: { '/': (_q, r) => r.end('<title>s</title>') },
    });
    plain = await startFixtureServer({
      routes: {
        '/': (_q, r) => {
          r.writeHead(301, { location: secure.url });
          r.end();
        },
      },
    });
    site = await startFixtureServer({
      root: path.resolve('test/fixtures/sites/quick-site'),
      routes: {
        '/latin1': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html' });
          r.end(Buffer.from('<meta charset="windows-1252"><p>caf\xe9 \x80</p>', 'latin1'));
        },
        '/gzip': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': 'gzip' });
          r.end(zlib.gzipSync('<p>compressed</p>'.repeat(100)));
        },
        '/image': (_q, r) => {
          r.writeHead(200, { 'content-type': 'image/png' });
          r.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        },
      },
    });
  });
  after(async () => {
    await Promise.all([site.close(), secure.close(), plain.close()]);
  });

  it('fetches the document with its headers, body, timings and sizes', async () => {
    const page = await gatherPage(ctx(site.url, `127.0.0.1:${site.port}`));
    assert.equal(page.status, 200);
    assert.equal(page.requestedUrl, site.url);
    assert.equal(page.finalUrl, site.url);
    assert.deepEqual(page.redirectChain, []);
    assert.equal(page.contentType, 'text/html; charset=utf-8');
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.html, /<title>Quick Site: a small fixture/);
    assert.equal(page.truncated, false);
    assert.equal(page.bytes.decoded, Buffer.byteLength(page.html));
    assert.equal(typeof page.timings.ttfbMs, 'number');
    assert.ok(page.timings.totalMs >= page.timings.ttfbMs);
    assert.equal(page.tls, null);
    assert.equal(page.httpRedirectsToHttps, false, 'served over plain http');
    assert.equal(site.hits.at(-1)?.headers['user-agent'], SIGHTLINE_USER_AGENT);
  });

  it('follows http -> https, records the chain and TLS facts of an untrusted certificate', async () => {
    const page = await gatherPage(ctx(plain.url, `127.0.0.1:${plain.port},127.0.0.1:${secure.port}`));
    assert.equal(page.finalUrl, secure.url);
    assert.deepEqual(page.redirectChain, [{ url: plain.url, status: 301, location: secure.url }]);
    assert.equal(page.tls?.authorized, false);
    assert.match(page.tls?.protocol ?? '', /^TLSv1\.[23]$/);
    assert.equal(page.httpRedirectsToHttps, true);
  });

  it('leaves httpRedirectsToHttps unknown for https on a non-default port', async () => {
    const page = await gatherPage(ctx(secure.url, `127.0.0.1:${secure.port}`));
    assert.equal(page.status, 200);
    assert.equal(page.httpRedirectsToHttps, null);
  });

  it('decodes the declared charset and compressed bodies', async () => {
    const allow = `127.0.0.1:${site.port}`;
    const latin = await gatherPage(ctx(`${site.origin}/latin1`, allow));
    assert.match(latin.html, /café €/);
    const gz = await gatherPage(ctx(`${site.origin}/gzip`, allow));
    assert.equal(gz.contentEncoding, 'gzip');
    assert.equal(gz.html, '<p>compressed</p>'.repeat(100));
    assert.ok(gz.bytes.transferred < gz.bytes.decoded);
  });

  it('keeps non-HTML responses and error statuses as artifacts', async () => {
    const allow = `127.0.0.1:${site.port}`;
    const image = await gatherPage(ctx(`${site.origin}/image`, allow));
    assert.equal(image.contentType, 'image/png');
    assert.equal(image.html, '');
    const missing = await gatherPage(ctx(`${site.origin}/missing`, allow));
    assert.equal(missing.status, 404);
    assert.equal(missing.html, 'Not found');
  });

  it('throws url_not_allowed for a target outside the policy', async () => {
    const before = site.hits.length;
    await assert.rejects(
      gatherPage(ctx(site.url, '')),
      (err) => err instanceof AppError && err.code === 'url_not_allowed',
    );
    assert.equal(site.hits.length, before);
  });
});
