import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { TLSSocket } from 'node:tls';
import zlib from 'node:zlib';
import { AppError, invalidUrl, urlNotAllowed } from '../errors.ts';
import type { FetchTimings, RedirectHop } from '../scan-engine/artifacts.ts';
import { normalizeHost } from './address-policy.ts';
import type { HostSlots } from './host-slots.ts';
import { NetError, toNetError } from './net-error.ts';
import { policyLookup } from './policy-lookup.ts';
import { precheckUrl, type UrlPolicy, urlPort } from './url-policy.ts';
import { SIGHTLINE_USER_AGENT } from './user-agent.ts';

// Every outbound HTTP request of the service goes through here: scans, gatherers, webhooks.
// node:http rather than global fetch, because only a socket-level `lookup` lets us check the
// address we actually connect to, on every redirect hop. Limits on time, size and redirects
// are always on.

export interface SafeFetchOptions {
  policy: UrlPolicy;
  method?: string;
  /** Request headers (any case); override the defaults below. */
  headers?: Record<string, string>;
  userAgent?: string; // default SIGHTLINE_USER_AGENT
  body?: string | Buffer;
  timeoutMs?: number; // whole fetch, redirects and body included; default 10 s
  connectTimeoutMs?: number; // per hop, DNS + TCP + TLS; default min(timeoutMs, 5 s)
  maxBytes?: number; // decoded body cap; longer bodies are cut and flagged `truncated`; default 5 MB
  maxRedirects?: number; // default 5
  followRedirects?: boolean; // default true; false returns the 3xx itself (webhooks)
  /** Accept invalid certificates and record `tls.authorized = false` instead of failing. */
  insecureTls?: boolean;
  signal?: AbortSignal;
  /** Per-host request slots shared by one scan or audit (at most 4 in flight to a host). */
  slots?: HostSlots;
}

export interface TlsFacts {
  protocol: string | null;
  cipher: string | null;
  validTo: string | null; // ISO 8601
  authorized: boolean;
  authorizationError: string | null;
}

export interface SafeFetchResult {
  requestedUrl: string;
  finalUrl: string;
  status: number;
  /** Names lower-cased; repeated headers joined by ", ". Set-Cookie is kept apart in setCookies. */
  headers: Record<string, string>;
  setCookies: string[];
  body: Buffer; // decoded (gzip, deflate, br)
  truncated: boolean;
  redirectChain: RedirectHop[];
  /** dns/connect/tls/ttfb of the final hop; totalMs from the first request to the last body byte. */
  timings: FetchTimings;
  tls: TlsFacts | null; // final hop, https only
  bytes: { transferred: number; decoded: number };
  contentEncoding: string | null;
  remoteAddress: string | null;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 5 * 1024 * 1024;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

export async function safeFetch(input: string | URL, opts: SafeFetchOptions): Promise<SafeFetchResult> {
  const started = performance.now();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  const abortError = () => abortReason(deadline, timeoutMs, opts.signal);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const requestedUrl = parseRequestedUrl(input);

  const request: HopRequest = {
    method: (opts.method ?? 'GET').toUpperCase(),
    headers: requestHeaders(opts),
    body: opts.body,
  };
  const hopOptions = {
    policy: opts.policy,
    insecureTls: opts.insecureTls ?? false,
    connectTimeoutMs: opts.connectTimeoutMs ?? Math.min(timeoutMs, 5_000),
    signal,
    abortError,
  };
  const chain: RedirectHop[] = [];
  let url = requestedUrl;
  for (;;) {
    const { hop, release } = await openHopInSlot(url, chain, opts, { ...hopOptions, ...request });
    const status = hop.res.statusCode ?? 0;
    const location = hop.res.headers.location;
    if ((opts.followRedirects ?? true) && REDIRECT_STATUSES.has(status) && location !== undefined) {
      hop.res.destroy(); // the redirect's own body is not needed
      release();
      url = followRedirect(url, status, location, chain, request, opts.maxRedirects ?? 5);
      continue;
    }

    const raw = await readBody(hop.res, maxBytes, signal, abortError, hop.host).finally(release);
    const contentEncoding = hop.res.headers['content-encoding'] ?? null;
    const decoded = await decodeBody(raw.body, contentEncoding, maxBytes);
    const { headers: responseHeaders, setCookies } = collectHeaders(hop.res.rawHeaders);
    return {
      requestedUrl: requestedUrl.href,
      finalUrl: url.href,
      status,
      headers: responseHeaders,
      setCookies,
      body: decoded.body,
      truncated: raw.truncated || decoded.truncated,
      redirectChain: chain,
      timings: { ...hop.timings, totalMs: round(performance.now() - started) },
      tls: hop.tls,
      bytes: { transferred: raw.body.length, decoded: decoded.body.length },
      contentEncoding,
      remoteAddress: hop.remoteAddress,
    };
  }
}

function parseRequestedUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidUrl(`"${String(input).slice(0, 200)}" is not a valid URL.`);
  }
  url.hash = '';
  return url;
}

/** What is sent on a hop; a redirect may change all three. */
type HopRequest = Pick<HopOptions, 'method' | 'headers' | 'body'>;

/**
 * Checks a hop's URL against the policy (a refusal after a redirect says so) and opens it. Each
 * hop holds a slot of its host from connect until its body is read (or dropped): the caller
 * calls `release` then.
 */
async function openHopInSlot(
  hopUrl: URL,
  chain: RedirectHop[],
  opts: SafeFetchOptions,
  o: HopOptions,
): Promise<{ hop: Hop; release: () => void }> {
  if (o.signal.aborted) throw o.abortError();
  try {
    precheckUrl(hopUrl, opts.policy);
  } catch (err) {
    throw chain.length && err instanceof AppError ? urlNotAllowed(`Redirect refused: ${err.message}`) : err;
  }
  const release = opts.slots ? await opts.slots.acquire(hopUrl.host, o.signal) : () => {};
  if (o.signal.aborted) {
    release();
    throw o.abortError();
  }
  try {
    return { hop: await openHop(hopUrl, o), release };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Records a redirect in the chain and returns where it leads, adjusting the request as browsers
 * do: a 303 (and a 301/302 of a POST) becomes a bodiless GET; credentials stay on their origin.
 */
function followRedirect(
  hopUrl: URL,
  status: number,
  location: string,
  chain: RedirectHop[],
  request: HopRequest,
  maxRedirects: number,
): URL {
  let next: URL;
  try {
    next = new URL(location, hopUrl);
  } catch {
    throw new NetError('bad_redirect', `${hopUrl.href} redirects to an invalid URL`);
  }
  next.hash = '';
  chain.push({ url: hopUrl.href, status, location: next.href });
  if (chain.length > maxRedirects)
    throw new NetError('too_many_redirects', `More than ${maxRedirects} redirects`);
  if (
    (status === 303 && request.method !== 'HEAD') ||
    ((status === 301 || status === 302) && request.method === 'POST')
  ) {
    request.method = 'GET';
    request.body = undefined;
    delete request.headers['content-type'];
    delete request.headers['content-length'];
  }
  if (next.origin !== hopUrl.origin) {
    delete request.headers.authorization;
    delete request.headers.cookie;
  }
  return next;
}

function requestHeaders(opts: SafeFetchOptions): Record<string, string> {
  const headers: Record<string, string> = {
    'user-agent': opts.userAgent ?? SIGHTLINE_USER_AGENT,
    accept: '*/*',
    'accept-encoding': 'gzip, deflate, br',
  };
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = v;
  if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
  return headers;
}

function abortReason(deadline: AbortSignal, timeoutMs: number, outer?: AbortSignal): NetError {
  if (deadline.aborted) return new NetError('timeout', `No complete response within ${timeoutMs} ms`);
  const reason = outer?.reason;
  if (reason instanceof DOMException && reason.name === 'TimeoutError')
    return new NetError('timeout', 'Timed out');
  return new NetError('aborted', 'The request was aborted');
}

interface Hop {
  res: http.IncomingMessage;
  host: string;
  timings: Omit<FetchTimings, 'totalMs'>;
  tls: TlsFacts | null;
  remoteAddress: string | null;
}

interface HopOptions {
  method: string;
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  policy: UrlPolicy;
  insecureTls: boolean;
  connectTimeoutMs: number;
  signal: AbortSignal;
  abortError: () => NetError;
}

function openHop(url: URL, o: HopOptions): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const host = normalizeHost(url.hostname);
    const port = urlPort(url);
    const secure = url.protocol === 'https:';
    const t0 = performance.now();
    let dnsMs: number | undefined;
    let connectedAt: number | undefined;
    let secureAt: number | undefined;
    let tls: TlsFacts | null = null;

    const req = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port,
      method: o.method,
      path: url.pathname + url.search,
      headers: o.headers,
      agent: false, // a fresh, checked connection per hop
      lookup: policyLookup(o.policy, port, (ms) => {
        dnsMs = ms;
      }),
      rejectUnauthorized: !o.insecureTls,
    });
    const connectTimer = setTimeout(
      () =>
        req.destroy(
          new NetError('connect_timeout', `No connection to ${host} within ${o.connectTimeoutMs} ms`),
        ),
      o.connectTimeoutMs,
    );
    const onAbort = () => req.destroy(o.abortError());
    o.signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      clearTimeout(connectTimer);
      o.signal.removeEventListener('abort', onAbort);
    };

    req.on('socket', (socket) => {
      socket.once('connect', () => {
        connectedAt = performance.now();
        if (!secure) clearTimeout(connectTimer);
      });
      socket.once('secureConnect', () => {
        secureAt = performance.now();
        tls = readTls(socket as TLSSocket);
        clearTimeout(connectTimer);
      });
    });
    req.on('response', (res) => {
      settle();
      const timings: Hop['timings'] = { ttfbMs: round(performance.now() - t0) };
      // Phases that did not happen (no DNS for an IP, no TLS for http) are left out.
      if (dnsMs !== undefined) timings.dnsMs = round(dnsMs);
      if (connectedAt !== undefined) timings.connectMs = round(connectedAt - t0 - (dnsMs ?? 0));
      if (secureAt !== undefined && connectedAt !== undefined) timings.tlsMs = round(secureAt - connectedAt);
      resolve({ res, host, tls, remoteAddress: res.socket?.remoteAddress ?? null, timings });
    });
    req.on('error', (err) => {
      settle();
      reject(toNetError(err, host));
    });
    if (o.signal.aborted) onAbort();
    else req.end(o.body);
  });
}

function readTls(socket: TLSSocket): TlsFacts {
  const cert = socket.getPeerCertificate();
  const validTo = cert?.valid_to ? new Date(cert.valid_to) : null;
  return {
    protocol: socket.getProtocol() ?? null,
    cipher: socket.getCipher()?.name ?? null,
    validTo: validTo && !Number.isNaN(validTo.getTime()) ? validTo.toISOString() : null,
    authorized: socket.authorized,
    authorizationError: socket.authorizationError ? String(socket.authorizationError) : null,
  };
}

function readBody(
  res: http.IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
  abortError: () => NetError,
  host: string,
): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: unknown, truncated = false) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (truncated || err) res.destroy();
      if (err) reject(err);
      else resolve({ body: Buffer.concat(chunks), truncated });
    };
    const onAbort = () => finish(abortError());
    signal.addEventListener('abort', onAbort, { once: true });
    res.on('data', (chunk: Buffer) => {
      const room = maxBytes - size;
      if (chunk.length > room) {
        if (room > 0) chunks.push(chunk.subarray(0, room));
        size = maxBytes;
        finish(null, true);
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    res.on('end', () => finish(null));
    res.on('error', (err) => finish(toNetError(err, host)));
    res.on('close', () =>
      finish(new NetError('network_error', `${host} closed the connection mid-response`)),
    );
  });
}

const SYNC_FLUSH = { finishFlush: zlib.constants.Z_SYNC_FLUSH };

function decoderFor(
  coding: string,
  data: Buffer,
): zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress {
  if (coding === 'br')
    return zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  if (coding === 'deflate') {
    // "deflate" should be zlib-wrapped (RFC 9110) but some servers send raw deflate: sniff the header.
    const zlibWrapped =
      data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
    return zlibWrapped ? zlib.createInflate(SYNC_FLUSH) : zlib.createInflateRaw(SYNC_FLUSH);
  }
  return zlib.createGunzip(SYNC_FLUSH);
}

const CODINGS = new Set(['gzip', 'x-gzip', 'deflate', 'br']);

/** Undoes Content-Encoding (in reverse order of application), never producing more than maxBytes. */
async function decodeBody(
  raw: Buffer,
  contentEncoding: string | null,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c && c !== 'identity');
  // Unknown codings: keep the bytes as sent; contentEncoding tells the reader.
  if (raw.length === 0 || codings.length === 0 || !codings.every((c) => CODINGS.has(c)))
    return { body: raw, truncated: false };
  let body = raw;
  let truncated = false;
  for (const coding of codings.reverse()) {
    const step = await inflate(body, coding, maxBytes);
    body = step.body;
    truncated ||= step.truncated;
  }
  return { body, truncated };
}

function inflate(
  data: Buffer,
  coding: string,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const z = decoderFor(coding, data);
    const out: Buffer[] = [];
    let size = 0;
    let settled = false;
    z.on('data', (chunk: Buffer) => {
      if (settled) return;
      if (size + chunk.length > maxBytes) {
        // A decompression bomb stops here.
        out.push(chunk.subarray(0, maxBytes - size));
        settled = true;
        z.destroy();
        resolve({ body: Buffer.concat(out), truncated: true });
        return;
      }
      out.push(chunk);
      size += chunk.length;
    });
    z.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ body: Buffer.concat(out), truncated: false });
    });
    z.on('error', (err) => {
      if (settled) return;
      settled = true;
      reject(new NetError('decode_error', `Could not decode ${coding} body: ${err.message}`, { cause: err }));
    });
    z.end(data);
  });
}

function collectHeaders(raw: string[]): { headers: Record<string, string>; setCookies: string[] } {
  const headers = new Map<string, string>();
  const setCookies: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const value = raw[i + 1]!;
    if (name === 'set-cookie') setCookies.push(value);
    else headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  return { headers: Object.fromEntries(headers), setCookies };
}

const round = (ms: number) => Math.round(ms * 10) / 10;
