import assert from 'node:assert/strict';
import type http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import zlib from 'node:zlib';
import { AppError } from '../../../shared/errors.ts';
import { NetError } from '../../../shared/net/net-error.ts';
import { safeFetch } from '../../../shared/net/safe-fetch.ts';
import { assertUrlAllowed, createUrlPolicy, type ResolvedAddress } from '../../../shared/net/url-policy.ts';
import { SIGHTLINE_USER_AGENT } from '../../../shared/net/user-agent.ts';
import { type FixtureServer, selfSignedCert, startFixtureServer } from '../../helpers/fixture-server.ts';

const code = (err: unknown) => (err instanceof AppError || err instanceof NetError ? err.code : String(err));
const rejectsWith = (p: Promise<unknown>, expected: string) =>
  assert.rejects(p, (err) => {
    assert.equal(code(err), expected, (err as Error).message);
    return true;
  });

/** A raw TCP server that counts connections: it must see none when a fetch is refused. */
async function startCanary(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const server = net.createServer((s) => {
    count++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const fakeDns = (answer: (host: string) => string[] | undefined) => async (host: string) => {
  const list = answer(host);
  if (!list) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return list.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const text = (res: http.ServerResponse, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}) => {
  res.writeHead(200, { 'content-type': 'text/plain', ...headers });
  res.end(body);
};

describe('safeFetch: SSRF refusals never reach the network', () => {
  let canary: Awaited<ReturnType<typeof startCanary>>;
  before(async () => {
    canary = await startCanary();
  });
  after(() => canary.close());

  it('refuses loopback in every spelling with url_not_allowed', async () => {
    const policy = createUrlPolicy(''); // the real system resolver for "localhost"
    const p = canary.port;
    const urls = [
      `http://127.0.0.1:${p}/`,
      `http://127.1:${p}/`,
      `http://2130706433:${p}/`,
      `http://0x7f.1:${p}/`,
      `http://0x7f000001:${p}/`,
      `http://0177.0.0.01:${p}/`,
      `http://0:${p}/`,
      `http://0.0.0.0:${p}/`,
      `http://[::ffff:127.0.0.1]:${p}/`,
      `http://[::ffff:7f00:1]:${p}/`,
      `http://[::1]:${p}/`,
      `HTTP://127.0.0.1:${p}/`,
      `http://localhost:${p}/`,
      `http://localhost.:${p}/`,
    ];
    for (const url of urls) await rejectsWith(safeFetch(url, { policy }), 'url_not_allowed');
    assert.equal(canary.connections(), 0);
  });

  it('refuses a public-looking name that resolves to 127.0.0.1', async () => {
    const policy = createUrlPolicy('', {
      resolve: fakeDns((h) => (h === 'cdn.example' ? ['127.0.0.1'] : undefined)),
    });
    await rejectsWith(safeFetch(`http://cdn.example:${canary.port}/`, { policy }), 'url_not_allowed');
    assert.equal(canary.connections(), 0);
  });

  it('checks every DNS answer, so a public + private pair is refused', async () => {
    const policy = createUrlPolicy('', { resolve: fakeDns(() => ['93.184.215.14', '127.0.0.1']) });
    await rejectsWith(safeFetch(`http://pair.example:${canary.port}/`, { policy }), 'url_not_allowed');
    assert.equal(canary.connections(), 0);
  });

  it('re-checks at connect time: a DNS rebind after the API check is refused', async () => {
    let calls = 0;
    const policy = createUrlPolicy('', {
      resolve: fakeDns(() => (calls++ === 0 ? ['93.184.215.14'] : ['127.0.0.1'])),
    });
    const url = new URL(`http://rebind.example:${canary.port}/`);
    assert.deepEqual(await assertUrlAllowed(url, policy), ['93.184.215.14']);
    await rejectsWith(safeFetch(url, { policy }), 'url_not_allowed');
    assert.equal(calls, 2);
    assert.equal(canary.connections(), 0);
  });

  it('refuses non-http schemes and credentials', async () => {
    const policy = createUrlPolicy(`127.0.0.1:${canary.port}`);
    await rejectsWith(safeFetch('file:///etc/passwd', { policy }), 'url_not_allowed');
    await rejectsWith(safeFetch(`http://user:pw@127.0.0.1:${canary.port}/`, { policy }), 'url_not_allowed');
    assert.equal(canary.connections(), 0);
  });
});

describe('safeFetch: redirects', () => {
  let site: FixtureServer;
  let other: FixtureServer; // on 127.0.0.2: never allowlisted here
  let canary: Awaited<ReturnType<typeof startCanary>>;
  before(async () => {
    canary = await startCanary();
    other = await startFixtureServer({ host: '127.0.0.2', routes: { '/': (_q, r) => text(r, 'other') } });
    const redirect =
      (status: number, to: () => string) => (_q: http.IncomingMessage, r: http.ServerResponse) => {
        r.writeHead(status, { location: to() });
        r.end();
      };
    site = await startFixtureServer({
      routes: {
        '/ok': (_q, r) => text(r, 'ok'),
        '/to-ok': redirect(301, () => '/ok'),
        '/chain': redirect(302, () => '/to-ok'),
        '/loop': redirect(302, () => '/loop'),
        '/to-canary': redirect(302, () => `http://127.0.0.1:${canary.port}/`),
        '/to-other': redirect(307, () => `${other.origin}/`),
        '/to-name': redirect(302, () => `http://sneaky.example:${canary.port}/`),
        '/to-file': redirect(302, () => 'file:///etc/passwd'),
        '/to-metadata': redirect(302, () => 'http://169.254.169.254/latest/meta-data/'),
        '/see-other': redirect(303, () => '/echo'),
        '/echo': (q, r) => {
          let body = '';
          q.on('data', (c) => {
            body += c;
          });
          q.on('end', () => text(r, `${q.method} ${body}`));
        },
      },
    });
  });
  after(async () => {
    await site.close();
    await other.close();
    await canary.close();
  });
  const policy = () =>
    createUrlPolicy(`127.0.0.1:${site.port}`, {
      resolve: fakeDns((h) => (h === 'sneaky.example' ? ['127.0.0.1'] : undefined)),
    });

  it('follows and records a redirect chain', async () => {
    const res = await safeFetch(`${site.origin}/chain#frag`, { policy: policy() });
    assert.equal(res.status, 200);
    assert.equal(res.body.toString(), 'ok');
    assert.equal(res.requestedUrl, `${site.origin}/chain`);
    assert.equal(res.finalUrl, `${site.origin}/ok`);
    assert.deepEqual(res.redirectChain, [
      { url: `${site.origin}/chain`, status: 302, location: `${site.origin}/to-ok` },
      { url: `${site.origin}/to-ok`, status: 301, location: `${site.origin}/ok` },
    ]);
  });

  it('re-checks every hop: redirects to a non-allowlisted port, address or name are refused', async () => {
    for (const path of ['/to-canary', '/to-other', '/to-name', '/to-file', '/to-metadata']) {
      await rejectsWith(safeFetch(`${site.origin}${path}`, { policy: policy() }), 'url_not_allowed');
    }
    assert.equal(canary.connections(), 0);
    assert.equal(other.hits.length, 0);
  });

  it('stops at maxRedirects', async () => {
    await rejectsWith(
      safeFetch(`${site.origin}/loop`, { policy: policy(), maxRedirects: 3 }),
      'too_many_redirects',
    );
    const hits = site.hits.filter((h) => h.url === '/loop').length;
    await rejectsWith(
      safeFetch(`${site.origin}/chain`, { policy: policy(), maxRedirects: 1 }),
      'too_many_redirects',
    );
    assert.equal(hits, 4); // the first request and three redirects
  });

  it('returns the redirect itself when not following', async () => {
    const res = await safeFetch(`${site.origin}/to-canary`, { policy: policy(), followRedirects: false });
    assert.equal(res.status, 302);
    assert.equal(res.headers.location, `http://127.0.0.1:${canary.port}/`);
    assert.deepEqual(res.redirectChain, []);
    assert.equal(canary.connections(), 0);
  });

  it('turns a POST into a GET on 303', async () => {
    const res = await safeFetch(`${site.origin}/see-other`, {
      policy: policy(),
      method: 'POST',
      body: 'x=1',
    });
    assert.equal(res.body.toString(), 'GET ');
    const direct = await safeFetch(`${site.origin}/echo`, {
      policy: policy(),
      method: 'POST',
      body: 'x=1',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(direct.body.toString(), 'POST x=1');
  });
});

describe('safeFetch: limits and failures', () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer({
      routes: {
        '/big': (_q, r) => text(r, Buffer.alloc(100_000, 'a')),
        '/exact': (_q, r) => text(r, Buffer.alloc(1000, 'b')),
        '/hang': () => {}, // never answers
        '/stall': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/plain' });
          r.write('partial'); // headers and a little body, then nothing
        },
        '/headers': (_q, r) => {
          r.setHeader('Content-Security-Policy', ["default-src 'self'", "frame-ancestors 'none'"]);
          r.setHeader('Set-Cookie', ['a=1; Secure; HttpOnly', 'b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT']);
          r.setHeader('X-Custom', 'v');
          text(r, 'h');
        },
        '/ua': (q, r) => text(r, q.headers['user-agent'] ?? ''),
      },
    });
  });
  after(() => site.close());
  const policy = () => createUrlPolicy(`127.0.0.1:${site.port}`);

  it('cuts the body at maxBytes and flags it', async () => {
    const res = await safeFetch(`${site.origin}/big`, { policy: policy(), maxBytes: 10_000 });
    assert.equal(res.body.length, 10_000);
    assert.equal(res.truncated, true);
    const exact = await safeFetch(`${site.origin}/exact`, { policy: policy(), maxBytes: 1000 });
    assert.equal(exact.body.length, 1000);
    assert.equal(exact.truncated, false);
  });

  it('times out a server that never answers, or stalls mid-body', async () => {
    await rejectsWith(safeFetch(`${site.origin}/hang`, { policy: policy(), timeoutMs: 200 }), 'timeout');
    await rejectsWith(safeFetch(`${site.origin}/stall`, { policy: policy(), timeoutMs: 200 }), 'timeout');
  });

  it('gives up connecting when DNS never answers', async () => {
    const stuck = createUrlPolicy('', { resolve: () => new Promise<ResolvedAddress[]>(() => {}) });
    await rejectsWith(
      safeFetch('http://slow-dns.example/', { policy: stuck, connectTimeoutMs: 100 }),
      'connect_timeout',
    );
  });

  it('honours a caller abort signal', async () => {
    const controller = new AbortController();
    const pending = safeFetch(`${site.origin}/hang`, { policy: policy(), signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await rejectsWith(pending, 'aborted');
  });

  it('fails fast on a closed port and a name that does not resolve', async () => {
    const closed = await startCanary();
    const port = closed.port;
    await closed.close();
    await rejectsWith(
      safeFetch(`http://127.0.0.1:${port}/`, { policy: createUrlPolicy('127.0.0.1') }),
      'connection_refused',
    );
    const none = createUrlPolicy('', { resolve: fakeDns(() => undefined) });
    await rejectsWith(safeFetch('https://no-such-host.invalid/', { policy: none }), 'dns_failure');
  });

  it('connects to the checked addresses of a name, falling back across families', async () => {
    const policy = createUrlPolicy('fixture.test', {
      // ::1 first: nothing listens there, so the connection must move on to 127.0.0.1.
      resolve: fakeDns((h) => (h === 'fixture.test' ? ['::1', '127.0.0.1'] : undefined)),
    });
    const res = await safeFetch(`http://fixture.test:${site.port}/ua`, { policy });
    assert.equal(res.status, 200);
    assert.equal(res.remoteAddress, '127.0.0.1');
    assert.equal(typeof res.timings.dnsMs, 'number');
    assert.equal(site.hits.at(-1)?.headers.host, `fixture.test:${site.port}`);
  });

  it('refuses a string that is not a URL with invalid_url', async () => {
    await rejectsWith(safeFetch('not a url', { policy: policy() }), 'invalid_url');
  });

  it('lower-cases and joins headers, keeps Set-Cookie apart, sends our user agent', async () => {
    const res = await safeFetch(`${site.origin}/headers`, { policy: policy() });
    assert.equal(res.headers['content-security-policy'], "default-src 'self', frame-ancestors 'none'");
    assert.equal(res.headers['x-custom'], 'v');
    assert.equal(res.headers['set-cookie'], undefined);
    assert.deepEqual(res.setCookies, ['a=1; Secure; HttpOnly', 'b=2; Expires=Wed, 21 Oct 2037 07:28:00 GMT']);
    assert.equal(
      (await safeFetch(`${site.origin}/ua`, { policy: policy() })).body.toString(),
      SIGHTLINE_USER_AGENT,
    );
    const custom = await safeFetch(`${site.origin}/ua`, { policy: policy(), userAgent: 'GPTBot/1.1' });
    assert.equal(custom.body.toString(), 'GPTBot/1.1');
  });
});

describe('safeFetch: decompression', () => {
  const page = Buffer.from('<!doctype html><title>t</title>'.repeat(200));
  let site: FixtureServer;
  const encoded = (encoding: string, body: Buffer) => (_q: http.IncomingMessage, r: http.ServerResponse) => {
    r.writeHead(200, { 'content-type': 'text/html', 'content-encoding': encoding });
    r.end(body);
  };
  before(async () => {
    site = await startFixtureServer({
      routes: {
        '/gzip': encoded('gzip', zlib.gzipSync(page)),
        '/deflate': encoded('deflate', zlib.deflateSync(page)),
        '/deflate-raw': encoded('deflate', zlib.deflateRawSync(page)),
        '/br': encoded('br', zlib.brotliCompressSync(page)),
        '/stacked': encoded('gzip, br', zlib.brotliCompressSync(zlib.gzipSync(page))),
        '/unknown': encoded('zstd', Buffer.from('opaque')),
        '/bomb': encoded('gzip', zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024))),
        '/corrupt': encoded('gzip', Buffer.from('this is not gzip at all')),
      },
    });
  });
  after(() => site.close());
  const policy = () => createUrlPolicy(`127.0.0.1:${site.port}`);

  for (const path of ['/gzip', '/deflate', '/deflate-raw', '/br', '/stacked']) {
    it(`decodes ${path.slice(1)}`, async () => {
      const res = await safeFetch(`${site.origin}${path}`, { policy: policy() });
      assert.deepEqual(res.body, page);
      assert.equal(res.bytes.decoded, page.length);
      assert.ok(res.bytes.transferred < page.length, 'transferred counts the compressed bytes');
      assert.equal(res.truncated, false);
      assert.ok(res.contentEncoding);
    });
  }

  it('keeps an unknown coding as sent', async () => {
    const res = await safeFetch(`${site.origin}/unknown`, { policy: policy() });
    assert.equal(res.body.toString(), 'opaque');
    assert.equal(res.contentEncoding, 'zstd');
  });

  it('stops a decompression bomb at maxBytes', async () => {
    const res = await safeFetch(`${site.origin}/bomb`, { policy: policy(), maxBytes: 1024 * 1024 });
    assert.equal(res.truncated, true);
    assert.equal(res.body.length, 1024 * 1024);
  });

  it('reports a corrupt body as decode_error', async () => {
    await rejectsWith(safeFetch(`${site.origin}/corrupt`, { policy: policy() }), 'decode_error');
  });
});

describe('safeFetch: https', () => {
  let site: FixtureServer;
  before(async () => {
    site = await startFixtureServer({ tls: selfSignedCert(), routes: { '/': (_q, r) => text(r, 'secure') } });
  });
  after(() => site.close());
  const policy = () => createUrlPolicy(`127.0.0.1:${site.port}`);

  it('refuses an untrusted certificate by default', async () => {
    await rejectsWith(safeFetch(site.url, { policy: policy() }), 'tls_error');
  });

  it('records TLS facts, authorized=false, when told to accept any certificate', async () => {
    const res = await safeFetch(site.url, { policy: policy(), insecureTls: true });
    assert.equal(res.body.toString(), 'secure');
    assert.ok(res.tls);
    assert.equal(res.tls.authorized, false);
    assert.match(res.tls.authorizationError ?? '', /SELF_SIGNED|self.signed/i);
    assert.match(res.tls.protocol ?? '', /^TLSv1\.[23]$/);
    assert.ok(res.tls.cipher);
    const validTo = Date.parse(res.tls.validTo ?? '');
    assert.ok(validTo > Date.now() && validTo < Date.now() + 3 * 86_400_000, 'two-day certificate');
    assert.equal(typeof res.timings.tlsMs, 'number');
  });
});
