import dns from 'node:dns';
import tls from 'node:tls';
import { invalidUrl, urlNotAllowed } from '../errors.ts';
import { type Allowlist, forbiddenReason, normalizeHost, parseAllowlist, parseIp } from './address-policy.ts';
import { NetError, toNetError } from './net-error.ts';

// The one place that decides whether a URL may be fetched. Synchronous checks (scheme,
// credentials, literal addresses) run before anything else; DNS answers are checked here for the
// API's early refusal and again at connect time by safe-fetch and the browser proxy, which connect
// only to the addresses they checked (so a rebinding DNS answer cannot slip through).

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface UrlPolicy {
  readonly allowlist: Allowlist;
  /** All addresses of a hostname (A and AAAA). Tests substitute their own resolver. */
  resolve: Resolver;
  /** Why connecting to `address` for `host:port` is refused, or null when it is allowed. */
  refusal(host: string, port: number, address: string): string | null;
}

export interface UrlPolicyOptions {
  resolve?: Resolver;
}

const DNS_TIMEOUT_MS = 5_000;

async function systemResolve(hostname: string): Promise<ResolvedAddress[]> {
  // getaddrinfo, like a browser: honours /etc/hosts, returns every v4 and v6 answer. It has no
  // timeout of its own that we control, so the wait is bounded here.
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new NetError('dns_failure', `DNS lookup of ${hostname} timed out`)),
      DNS_TIMEOUT_MS,
    );
  });
  try {
    const answers = await Promise.race([
      dns.promises.lookup(hostname, { all: true, verbatim: true }),
      timeout,
    ]);
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
}

export function createUrlPolicy(allowHosts: string, opts: UrlPolicyOptions = {}): UrlPolicy {
  const allowlist = parseAllowlist(allowHosts);
  return {
    allowlist,
    resolve: opts.resolve ?? systemResolve,
    refusal(host, port, address) {
      const ip = parseIp(address);
      if (!ip) return 'unparsable address';
      if (allowlist.matches(host, port, ip)) return null;
      return forbiddenReason(ip);
    },
  };
}

/** The port a URL connects to. */
export function urlPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

/**
 * Turns user input into an absolute http(s) URL: a bare host (`example.com`, `example.com/path`)
 * becomes https://. Refuses other schemes and credentials (url_not_allowed) and garbage
 * (invalid_url). The host is lower-cased and the fragment dropped.
 */
export function normalizeTargetUrl(input: string, field = 'url'): URL {
  const text = input.trim();
  if (!text) throw invalidUrl('A URL is required.', field);
  if (text.length > 2048) throw invalidUrl('The URL is longer than 2048 characters.', field);
  let candidate = text;
  if (!text.includes('://')) {
    const scheme = SCHEME.exec(text);
    // "example.com:8080/x" looks like a scheme followed by a port: that is a bare host.
    const isHostPort = scheme && /^\d+(\/|$|\?)/.test(text.slice(scheme[0].length));
    if (scheme && !isHostPort)
      throw urlNotAllowed(`Only http and https URLs can be scanned, not ${scheme[1]}:.`, field);
    candidate = text.startsWith('//') ? `https:${text}` : `https://${text}`;
  }
  let url: URL;
  try {
    url = new URL(candidate);
  } catch {
    throw invalidUrl(`"${input.trim().slice(0, 200)}" is not a valid URL.`, field);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw urlNotAllowed(`Only http and https URLs can be scanned, not ${url.protocol}.`, field);
  if (url.username || url.password) throw urlNotAllowed('URLs with credentials are not allowed.', field);
  if (!url.hostname || (!parseIp(url.hostname) && !/[a-z0-9]/.test(url.hostname)))
    throw invalidUrl(`"${input.trim().slice(0, 200)}" has no valid host.`, field);
  url.hash = '';
  return url;
}

/**
 * Checks that need no DNS: scheme, credentials, literal IP addresses (as canonicalised by the
 * WHATWG parser, so 127.1, 2130706433 and 0x7f.1 are all 127.0.0.1) and localhost names.
 */
export function precheckUrl(url: URL, policy: UrlPolicy, field = 'url'): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw urlNotAllowed(`Only http and https URLs are allowed, not ${url.protocol}.`, field);
  if (url.username || url.password) throw urlNotAllowed('URLs with credentials are not allowed.', field);
  const host = normalizeHost(url.hostname);
  const port = urlPort(url);
  const ip = parseIp(host);
  if (ip) {
    const reason = policy.refusal(host, port, host);
    if (reason) throw urlNotAllowed(`${url.hostname} is not a public address (${reason}).`, field);
  } else if (
    (host === 'localhost' || host.endsWith('.localhost')) &&
    !policy.allowlist.matches(host, port, null)
  ) {
    throw urlNotAllowed(`${url.hostname} is a local host name.`, field);
  }
}

/**
 * Resolves the URL's host (every answer, v4 and v6) and refuses it when any answer is forbidden
 * and not allowlisted. Returns the addresses. A host that does not resolve is a NetError
 * (dns_failure), not a policy refusal.
 */
export async function assertUrlAllowed(url: URL, policy: UrlPolicy, field = 'url'): Promise<string[]> {
  precheckUrl(url, policy, field);
  const host = normalizeHost(url.hostname);
  if (parseIp(host)) return [host];
  const addresses = await resolveChecked(policy, host, urlPort(url), field);
  return addresses.map((a) => a.address);
}

/** Resolves and checks every answer; the shared core of assertUrlAllowed and the connect-time lookup. */
export async function resolveChecked(
  policy: UrlPolicy,
  host: string,
  port: number,
  field = 'url',
): Promise<ResolvedAddress[]> {
  let answers: ResolvedAddress[];
  try {
    answers = await policy.resolve(host);
  } catch (err) {
    throw toNetError(err, host);
  }
  if (answers.length === 0) throw new NetError('dns_failure', `Could not resolve ${host}`);
  for (const a of answers) {
    // The answer itself stays out of the message: it would let a caller map internal DNS.
    if (policy.refusal(host, port, a.address))
      throw urlNotAllowed(`${host} resolves to an address that is not public.`, field);
  }
  return answers;
}

const PROBE_TIMEOUT_MS = 4_000;

/**
 * Whether `address:port` completes a TLS handshake for `host` (certificate problems aside: they
 * are the scan's to report, not a reason to drop to http). A refused or reset connection, a
 * timeout or a peer that does not speak TLS answers false.
 */
export function speaksTls(
  address: string,
  port: number,
  host: string,
  timeoutMs = PROBE_TIMEOUT_MS,
): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tls.connect({
      host: address,
      port,
      servername: parseIp(host) ? undefined : host,
      rejectUnauthorized: false,
      ALPNProtocols: ['http/1.1'],
    });
    const settle = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => settle(false), timeoutMs);
    socket.once('secureConnect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('close', () => settle(false));
  });
}

/**
 * User input to a vetted target URL. A bare host or `host:port` (no scheme) is tried over https
 * first and, when https cannot connect or handshake there, over http; the http URL is vetted
 * again (the allowlist may name ports).
 */
export async function resolveTargetUrl(input: string, policy: UrlPolicy, field = 'url'): Promise<URL> {
  const url = normalizeTargetUrl(input, field);
  const addresses = await assertUrlAllowed(url, policy, field);
  const bare = !input.trim().includes('://') && !input.trim().startsWith('//');
  if (!bare || !addresses[0]) return url;
  if (await speaksTls(addresses[0], urlPort(url), normalizeHost(url.hostname))) return url;
  const plain = new URL(url);
  plain.protocol = 'http:';
  // An explicit port stays; a bare host moves from 443 to 80.
  await assertUrlAllowed(plain, policy, field);
  return plain;
}
