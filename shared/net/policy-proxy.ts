import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import net from 'node:net';
import { AppError } from '../errors.ts';
import { normalizeHost } from './address-policy.ts';
import { policyLookup } from './policy-lookup.ts';
import { precheckUrl, type UrlPolicy, urlPort } from './url-policy.ts';

// A forward proxy on 127.0.0.1 that headless Chromium (and Lighthouse's Chromium) is launched
// behind with `--proxy-server=<url> --proxy-bypass-list=<-loopback>`, so every browser request —
// documents, subresources, iframes, redirects, websockets — is checked against the URL policy at
// connect time, exactly like safeFetch. Plain HTTP is forwarded (absolute-form requests and
// websocket upgrades); https and wss arrive as CONNECT tunnels. Refusals answer 403 and are
// recorded in `blocked`. Answers the proxy makes itself (a refusal, an unreachable target) carry
// PROXY_ANSWER_HEADER, so a browser load that ended on one is never mistaken for the site's page.

/** Set on responses the proxy writes itself: `refused` (the URL policy) or `unreachable`. */
export const PROXY_ANSWER_HEADER = 'x-sightline-proxy';
const proxyAnswer = (status: number) => ({
  'content-type': 'text/plain',
  [PROXY_ANSWER_HEADER]: status === 403 ? 'refused' : 'unreachable',
});

export interface PolicyProxy {
  port: number;
  url: string; // http://127.0.0.1:<port>
  /** Refused targets: the URL for plain HTTP, host:port for tunnels (capped). */
  blocked: string[];
  close(): Promise<void>;
}

export interface PolicyProxyOptions {
  connectTimeoutMs?: number; // default 10 s
  idleTimeoutMs?: number; // a tunnel or request with no traffic this long is closed; default 60 s
  maxBlocked?: number; // default 500
  /** A plain-HTTP response body larger than this is cut (hostile documents); default 32 MiB. */
  maxResponseBytes?: number;
  /** Bytes one tunnel (https, wss) may carry towards the browser; default 128 MiB. */
  maxTunnelBytes?: number;
}

export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
export const DEFAULT_MAX_TUNNEL_BYTES = 128 * 1024 * 1024;

// Hop-by-hop headers (RFC 9110 7.6.1) and the proxy's own: never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

export async function startPolicyProxy(
  policy: UrlPolicy,
  opts: PolicyProxyOptions = {},
): Promise<PolicyProxy> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? 60_000;
  const maxBlocked = opts.maxBlocked ?? 500;
  const blocked: string[] = [];
  const sockets = new Set<Socket>();
  const proxy: ProxyState = {
    policy,
    connectTimeoutMs: opts.connectTimeoutMs ?? 10_000,
    maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    maxTunnelBytes: opts.maxTunnelBytes ?? DEFAULT_MAX_TUNNEL_BYTES,
    track: (s) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.setTimeout(idleTimeoutMs, () => s.destroy());
    },
    block: (target) => {
      if (blocked.length < maxBlocked) blocked.push(target);
    },
  };

  const server = http.createServer((req, res) => forwardRequest(proxy, req, res));
  server.on('connection', proxy.track);
  server.on('connect', (req: http.IncomingMessage, client: Socket, head: Buffer) =>
    openTunnel(proxy, req, client, head),
  );
  server.on('upgrade', (req: http.IncomingMessage, client: Socket, head: Buffer) =>
    forwardUpgrade(proxy, req, client, head),
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    blocked,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** One proxy's policy and limits, and how it keeps track of sockets and refusals. */
interface ProxyState {
  policy: UrlPolicy;
  connectTimeoutMs: number;
  maxResponseBytes: number;
  maxTunnelBytes: number;
  /** Registers a socket: closed on idleness and when the proxy closes. */
  track(s: Socket): void;
  /** Records a refused target (up to maxBlocked). */
  block(target: string): void;
}

/** Opens a checked TCP connection to `url`'s host and port, or answers onFail(403|502). */
function connectChecked(
  proxy: ProxyState,
  url: URL,
  target: string,
  onFail: (status: number) => void,
  onOpen: (s: Socket) => void,
): void {
  try {
    precheckUrl(url, proxy.policy);
  } catch {
    proxy.block(target);
    onFail(403);
    return;
  }
  const port = urlPort(url);
  const upstream = net.connect({
    host: normalizeHost(url.hostname),
    port,
    lookup: policyLookup(proxy.policy, port),
  });
  proxy.track(upstream);
  const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), proxy.connectTimeoutMs);
  const onError = (err: Error) => {
    clearTimeout(timer);
    const refused = err instanceof AppError;
    if (refused) proxy.block(target);
    onFail(refused ? 403 : 502);
  };
  upstream.once('error', onError);
  upstream.once('connect', () => {
    clearTimeout(timer);
    // From here on the tunnel or client request handles errors; this one only keeps a late
    // socket error from going unhandled before they attach.
    upstream.off('error', onError);
    upstream.on('error', () => upstream.destroy());
    onOpen(upstream);
  });
}

/** Plain HTTP: an absolute-form request, re-sent on a checked socket, its response capped. */
function forwardRequest(proxy: ProxyState, req: http.IncomingMessage, res: http.ServerResponse): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400, { 'content-type': 'text/plain' }).end('Proxy requests need an absolute http:// URL.');
    return;
  }
  if (url.protocol !== 'http:') {
    proxy.block(url.href);
    res.writeHead(403, proxyAnswer(403)).end('Refused by the URL policy.');
    return;
  }
  const fail = (status: number) => {
    if (!res.headersSent)
      res.writeHead(status, proxyAnswer(status)).end(status === 403 ? 'Refused by the URL policy.' : '');
    else res.destroy();
  };
  connectChecked(proxy, url, url.href, fail, (socket) => {
    // Hand the checked socket to an ordinary client request.
    const upstream = http.request({
      createConnection: () => socket,
      method: req.method,
      path: url.pathname + url.search,
      headers: forwardHeaders(req.rawHeaders),
    });
    upstream.on('response', (up) => {
      res.writeHead(up.statusCode ?? 502, up.statusMessage, forwardHeaders(up.rawHeaders));
      capBytes(up, proxy.maxResponseBytes, () => {
        up.destroy();
        res.destroy(); // the browser sees a truncated response: a network error
      });
      up.pipe(res);
    });
    upstream.on('error', () => fail(502));
    res.once('close', () => socket.destroy());
    req.pipe(upstream);
  });
}

const refuseTunnel = (client: Socket) => (status: number) =>
  client.end(`HTTP/1.1 ${status} ${status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\n\r\n`);

/** https and wss: a CONNECT to host:port, tunnelled once the connection is checked. */
function openTunnel(proxy: ProxyState, req: http.IncomingMessage, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  const target = req.url ?? '';
  let url: URL;
  try {
    // An authority like "example.com:443" or "[::1]:443"; it must carry an explicit port.
    url = new URL(`https://${target}`);
    if (!/:\d+$/.test(target) || url.pathname !== '/' || url.search) throw new Error('bad authority');
  } catch {
    client.end('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n');
    return;
  }
  connectChecked(proxy, url, target, refuseTunnel(client), (upstream) => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length) upstream.write(head);
    tunnel(client, upstream, proxy.maxTunnelBytes);
  });
}

/** ws:// through the proxy: a GET in absolute form with Upgrade. Re-sent on a checked socket. */
function forwardUpgrade(proxy: ProxyState, req: http.IncomingMessage, client: Socket, head: Buffer): void {
  client.on('error', () => client.destroy());
  let url: URL;
  try {
    url = new URL(req.url ?? '');
    if (url.protocol !== 'http:') throw new Error('not http');
  } catch {
    client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  connectChecked(proxy, url, url.href, refuseTunnel(client), (upstream) => {
    const lines = [`${req.method} ${url.pathname}${url.search} HTTP/1.1`];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
      if (!req.rawHeaders[i]!.toLowerCase().startsWith('proxy-'))
        lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    }
    upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (head.length) upstream.write(head);
    tunnel(client, upstream, proxy.maxTunnelBytes);
  });
}

/** Calls over() once when more than `max` bytes have passed through `stream`. */
function capBytes(stream: NodeJS.ReadableStream, max: number, over: () => void): void {
  let seen = 0;
  stream.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > max) over();
  });
}

function tunnel(a: Socket, b: Socket, maxDownBytes = DEFAULT_MAX_TUNNEL_BYTES): void {
  a.pipe(b);
  b.pipe(a);
  const end = () => {
    a.destroy();
    b.destroy();
  };
  capBytes(b, maxDownBytes, end);
  a.once('error', end);
  b.once('error', end);
  a.once('close', end);
  b.once('close', end);
}

/** Raw header pairs minus hop-by-hop ones, as a header array (keeps repeated headers apart). */
function forwardHeaders(raw: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (!HOP_BY_HOP.has(raw[i]!.toLowerCase())) out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
