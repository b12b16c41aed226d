import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { existsSync } from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import tls from 'node:tls';
import { chromium } from 'playwright-core';
import { type PolicyProxy, startPolicyProxy } from '../../../shared/net/policy-proxy.ts';
import { createUrlPolicy, type ResolvedAddress } from '../../../shared/net/url-policy.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import { type FixtureServer, selfSignedCert, startFixtureServer } from '../../helpers/fixture-server.ts';

const CHROMIUM = '/usr/bin/chromium';

/** A raw TCP server that counts connections: it must see none when the proxy refuses. */
async function startCanary() {
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

/** A websocket endpoint that completes the RFC 6455 handshake and then echoes nothing. */
async function startWsServer() {
  const server = http.createServer((_q, r) => r.end('ws only'));
  const upgraded = new Set<Duplex>(); // detached from the server: closed by hand
  server.on('upgrade', (req, socket) => {
    upgraded.add(socket);
    socket.resume();
    const accept = crypto
      .createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((r) => {
        for (const s of upgraded) s.destroy();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Sends one request to the proxy in absolute form, as a browser configured with it would. */
function viaProxy(
  proxy: PolicyProxy,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: proxy.port, path: target, headers, agent: false },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Opens a CONNECT tunnel; resolves the status line's code and the socket. */
function connectVia(proxy: PolicyProxy, authority: string): Promise<{ status: number; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      method: 'CONNECT',
      path: authority,
      agent: false,
    });
    req.on('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.on('response', (res) => resolve({ status: res.statusCode ?? 0, socket: res.socket }));
    req.on('error', reject);
    req.end();
  });
}

/** Sends a websocket upgrade for a ws:// URL in absolute form; resolves the response status. */
function upgradeVia(proxy: PolicyProxy, target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1',
      port: proxy.port,
      path: target,
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': crypto.randomBytes(16).toString('base64'),
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('policy proxy', () => {
  let site: FixtureServer;
  let secure: FixtureServer;
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let ws: Awaited<ReturnType<typeof startWsServer>>;
  let proxy: PolicyProxy;

  before(async () => {
    canary = await startCanary();
    ws = await startWsServer();
    site = await startFixtureServer({
      routes: {
        '/ok': (q, r) => {
          r.setHeader('set-cookie', ['a=1', 'b=2']);
          r.end(`hello ${q.headers.host}`);
        },
        '/to-canary': (_q, r) => {
          r.writeHead(302, { location: `http://127.0.0.1:${canary.port}/` });
          r.end();
        },
      },
    });
    secure = await startFixtureServer({ tls: selfSignedCert(), routes: { '/': (_q, r) => r.end('secure') } });
    const policy = createUrlPolicy(`127.0.0.1:${site.port},127.0.0.1:${secure.port},127.0.0.1:${ws.port}`, {
      resolve: async (host): Promise<ResolvedAddress[]> => {
        if (host === 'sneaky.example') return [{ address: '127.0.0.1', family: 4 }];
        throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    proxy = await startPolicyProxy(policy);
  });
  after(async () => {
    await proxy.close();
    await Promise.all([site.close(), secure.close(), canary.close(), ws.close()]);
  });

  it('forwards plain HTTP to an allowed target, headers intact', async () => {
    const res = await viaProxy(proxy, `${site.origin}/ok`, { host: `127.0.0.1:${site.port}` });
    assert.equal(res.status, 200);
    assert.equal(res.body, `hello 127.0.0.1:${site.port}`);
    assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(site.hits.at(-1)?.url, '/ok'); // origin-form upstream
  });

  it('passes redirects back to the client rather than following them', async () => {
    const res = await viaProxy(proxy, `${site.origin}/to-canary`);
    assert.equal(res.status, 302);
    assert.equal(canary.connections(), 0);
  });

  it('refuses plain HTTP to non-allowlisted targets with 403 and records them', async () => {
    const targets = [
      `http://127.0.0.1:${canary.port}/x`,
      `http://127.1:${canary.port}/y`,
      `http://[::ffff:127.0.0.1]:${canary.port}/`,
      `http://sneaky.example:${canary.port}/z`,
      `http://localhost:${canary.port}/`,
    ];
    for (const target of targets) {
      const res = await viaProxy(proxy, target);
      assert.equal(res.status, 403, target);
    }
    assert.equal(canary.connections(), 0);
    assert.ok(proxy.blocked.includes(`http://127.0.0.1:${canary.port}/x`));
    assert.ok(proxy.blocked.includes(`http://sneaky.example:${canary.port}/z`));
  });

  it('answers 400 to a request that is not in proxy form', async () => {
    const res = await viaProxy(proxy, '/relative');
    assert.equal(res.status, 400);
  });

  it('tunnels CONNECT to an allowed target (TLS end to end)', async () => {
    const { status, socket } = await connectVia(proxy, `127.0.0.1:${secure.port}`);
    assert.equal(status, 200);
    const body = await new Promise<string>((resolve, reject) => {
      const t = tls.connect({ socket, rejectUnauthorized: false }, () => {
        t.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${secure.port}\r\nConnection: close\r\n\r\n`);
      });
      let data = '';
      t.on('data', (c) => {
        data += c;
      });
      t.on('end', () => resolve(data));
      t.on('error', reject);
    });
    assert.match(body, /^HTTP\/1\.1 200/);
    assert.match(body, /secure$/);
  });

  it('refuses CONNECT to non-allowlisted targets', async () => {
    for (const authority of [
      `127.0.0.1:${canary.port}`,
      `sneaky.example:${canary.port}`,
      `[::1]:${canary.port}`,
    ]) {
      const { status, socket } = await connectVia(proxy, authority);
      socket.destroy();
      assert.equal(status, 403, authority);
    }
    assert.ok(proxy.blocked.includes(`sneaky.example:${canary.port}`));
    assert.equal(canary.connections(), 0);
  });

  it('forwards ws:// upgrades to allowed targets only', async () => {
    assert.equal(await upgradeVia(proxy, `http://127.0.0.1:${ws.port}/socket`), 101);
    assert.equal(await upgradeVia(proxy, `http://127.0.0.1:${canary.port}/socket`), 403);
    assert.equal(canary.connections(), 0);
  });
});

describe('policy proxy with Chromium', {
  skip: skipUnlessBrowser(existsSync(CHROMIUM), `${CHROMIUM} not installed`),
}, () => {
  let site: FixtureServer;
  let other: FixtureServer; // 127.0.0.2: not allowlisted
  let canary: Awaited<ReturnType<typeof startCanary>>;
  let ws: Awaited<ReturnType<typeof startWsServer>>;

  before(async () => {
    canary = await startCanary();
    ws = await startWsServer();
    other = await startFixtureServer({ host: '127.0.0.2', routes: { '/': (_q, r) => r.end('other') } });
    const c = () => `127.0.0.1:${canary.port}`;
    site = await startFixtureServer({
      routes: {
        '/': (_q, r) => {
          r.writeHead(200, { 'content-type': 'text/html' });
          r.end(`<!doctype html><title>fixture</title>
<link rel="stylesheet" href="http://${c()}/style.css">
<img src="/ok.svg"><img src="http://${c()}/pixel.png"><img src="/to-canary">
<iframe src="${other.origin}/"></iframe>
<script>
  window.results = {};
  const open = (name, url) => new Promise((resolve) => {
    const s = new WebSocket(url);
    s.onopen = () => { window.results[name] = 'open'; s.close(); resolve(); };
    s.onerror = () => { window.results[name] = 'error'; resolve(); };
  });
  window.done = Promise.all([
    open('allowedWs', 'ws://127.0.0.1:${ws.port}/'),
    open('blockedWs', 'ws://${c()}/'),
    fetch('http://${c()}/api').then(() => { window.results.fetch = 'ok'; }, () => { window.results.fetch = 'error'; }),
  ]);
</script>`);
        },
        '/ok.svg': (_q, r) => {
          r.writeHead(200, { 'content-type': 'image/svg+xml' });
          r.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
        },
        '/to-canary': (_q, r) => {
          r.writeHead(302, { location: `http://${c()}/redirected.png` });
          r.end();
        },
      },
    });
  });
  after(async () => {
    await Promise.all([site.close(), other.close(), canary.close(), ws.close()]);
  });

  it('routes every browser request through the policy', async () => {
    const policy = createUrlPolicy(`127.0.0.1:${site.port},127.0.0.1:${ws.port}`);
    const proxy = await startPolicyProxy(policy);
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
      ].concat(['--disable-sync', '--no-first-run']),
      proxy: { server: proxy.url, bypass: '<-loopback>' },
    });
    try {
      const page = await browser.newPage();
      await page.goto(site.url, { waitUntil: 'load' });
      const results = await page.evaluate(async () => {
        const w = window as unknown as { done: Promise<unknown>; results: Record<string, string> };
        await w.done;
        return w.results;
      });
      assert.equal(await page.title(), 'fixture');
      assert.deepEqual(results, { allowedWs: 'open', blockedWs: 'error', fetch: 'error' });
      assert.ok(site.hits.some((h) => h.url === '/ok.svg'));
      assert.ok(site.hits.some((h) => h.url === '/to-canary'));
      assert.equal(canary.connections(), 0);
      assert.equal(other.hits.length, 0);
      for (const url of ['/style.css', '/pixel.png', '/redirected.png', '/api']) {
        assert.ok(proxy.blocked.includes(`http://127.0.0.1:${canary.port}${url}`), url);
      }
      assert.ok(proxy.blocked.includes(`${other.origin}/`));
    } finally {
      await browser.close();
      await proxy.close();
    }
  });
});

/** Writes `request` on a socket and counts the bytes that come back until the socket closes. */
function bytesUntilClose(socket: net.Socket, request: string): Promise<number> {
  return new Promise((resolve) => {
    let n = 0;
    socket.on('data', (d: Buffer) => {
      n += d.length;
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(n));
    socket.write(request);
  });
}

describe('policy proxy size caps', () => {
  it('cuts a plain-HTTP response past maxResponseBytes and a tunnel past maxTunnelBytes', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024, 'a');
    const site = await startFixtureServer({
      routes: {
        '/small': (_q, r) => r.end('ok'),
        '/big': (_q, r) => r.writeHead(200, { 'content-length': String(big.length) }).end(big),
      },
    });
    const proxy = await startPolicyProxy(createUrlPolicy(`127.0.0.1:${site.port}`), {
      maxResponseBytes: 1024 * 1024,
      maxTunnelBytes: 1024 * 1024,
    });
    try {
      assert.equal((await viaProxy(proxy, `${site.origin}/small`)).body, 'ok');
      const plain = net.connect(proxy.port, '127.0.0.1');
      await new Promise((r) => plain.once('connect', r));
      const cut = await bytesUntilClose(
        plain,
        `GET ${site.origin}/big HTTP/1.1\r\nHost: 127.0.0.1:${site.port}\r\nConnection: close\r\n\r\n`,
      );
      assert.ok(cut > 0 && cut < big.length, `plain HTTP carried ${cut} bytes`);
      const { status, socket } = await connectVia(proxy, `127.0.0.1:${site.port}`);
      assert.equal(status, 200);
      const tunnelled = await bytesUntilClose(
        socket,
        'GET /big HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n',
      );
      assert.ok(tunnelled > 0 && tunnelled < big.length, `tunnel carried ${tunnelled} bytes`);
    } finally {
      await proxy.close();
      await site.close();
    }
  });
});
