import type { KeyObject } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { findAgentInUse } from '../agent-catalogue/classify.ts';
import type { Verification } from '../db/tables/agent-traffic.ts';
import { safeFetch } from '../net/safe-fetch.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import type { AgentIpRanges } from './ip-ranges.ts';
import {
  type KeyResolver,
  type NonceCache,
  parseKeyDirectory,
  type SignedRequest,
  verifyWebBotAuth,
} from './web-bot-auth.ts';

// Is the visitor who its user agent says? In order of strength:
//   signature  a Web Bot Auth signature (RFC 9421) that verifies against the agent's key directory
//   ip         inside the vendor's published ranges
//   rdns       forward-confirmed reverse DNS into a domain the vendor documents
//   none       user agent only (the vendor offers no way to check)
//   pending    reverse DNS is needed and has not answered yet (the verify_agent_visits job)
//   unverified reverse DNS told nothing (timeout, resolver failure): retried later
//   spoofed    the vendor can be checked and the check failed: outside its ranges, or a reverse
//              name outside its domains
// `confidence` follows from it.

export const CONFIDENCE: Record<Verification, number> = {
  signature: 1,
  ip: 0.99,
  rdns: 0.97,
  none: 0.6,
  pending: 0.5,
  unverified: 0.5,
  spoofed: 0.05,
};

/** Vendors that document reverse-DNS verification of their crawlers: the host suffixes they name. */
const RDNS_DOMAINS: Record<string, string[]> = {
  Google: ['.googlebot.com', '.google.com', '.googleusercontent.com'],
  Microsoft: ['.search.msn.com'],
  Apple: ['.applebot.apple.com'],
  Amazon: ['.crawl.amazonbot.amazon'],
  Yandex: ['.yandex.ru', '.yandex.net', '.yandex.com'],
  Huawei: ['.petalsearch.com'],
  Baidu: ['.baidu.com', '.baidu.jp'],
  Yahoo: ['.crawl.yahoo.net'],
};

// Suffixes synced from a file (agent_rdns_suffixes, sources-sync.ts) replace a platform's shipped ones.
const syncedRdns = new Map<string, string[]>();

/** The reverse-DNS suffixes of each platform: the shipped ones, replaced by synced ones. */
export function rdnsSuffixesByPlatform(): Record<string, { suffixes: string[]; synced: boolean }> {
  const out: Record<string, { suffixes: string[]; synced: boolean }> = {};
  for (const [p, s] of Object.entries(RDNS_DOMAINS)) out[p] = { suffixes: s, synced: false };
  for (const [p, s] of syncedRdns) out[p] = { suffixes: s, synced: true };
  return out;
}

/** Sets the synced suffixes of a platform for this process (an empty list: none verify it). */
export function setSyncedRdnsSuffixes(platform: string, suffixes: string[]): void {
  syncedRdns.set(platform, suffixes);
}

export function rdnsDomains(agentToken: string, platform: string): string[] | undefined {
  if (!agentToken || !findAgentInUse(agentToken)) return undefined;
  const domains = syncedRdns.get(platform) ?? RDNS_DOMAINS[platform];
  return domains?.length ? domains : undefined;
}

export type RdnsResult = 'confirmed' | 'mismatch' | 'unknown';

/** Forward-confirmed reverse DNS with a short timeout and a per-address cache. */
export class RdnsVerifier {
  private readonly resolver: Resolver;
  private readonly cache = new Map<string, Promise<string[] | 'nxdomain' | 'error'>>();
  constructor(opts: { timeoutMs: number; servers?: string[] }) {
    this.resolver = new Resolver({ timeout: opts.timeoutMs, tries: 1 });
    if (opts.servers?.length) this.resolver.setServers(opts.servers);
  }

  /** Reverse names of `ip` that resolve forward to `ip` again. */
  private confirmedNames(ip: string): Promise<string[] | 'nxdomain' | 'error'> {
    let hit = this.cache.get(ip);
    if (!hit) {
      hit = (async () => {
        let names: string[];
        try {
          // resolvePtr, not reverse(): reverse() reports an unreachable server as ENOTFOUND too,
          // which would make every agent of an offline deployment look spoofed.
          names = await this.resolver.resolvePtr(arpaName(ip));
        } catch (err) {
          return (err as { code?: string }).code === 'ENOTFOUND' ? 'nxdomain' : 'error';
        }
        const v6 = ip.includes(':');
        const confirmed: string[] = [];
        for (const name of names.slice(0, 4)) {
          try {
            const addrs = v6 ? await this.resolver.resolve6(name) : await this.resolver.resolve4(name);
            if (addrs.some((a) => sameIp(a, ip))) confirmed.push(name.toLowerCase().replace(/\.$/, ''));
          } catch {
            // not confirmed
          }
        }
        return confirmed.length || names.length === 0 ? confirmed : ['!unconfirmed'];
      })();
      if (this.cache.size > 50_000) this.cache.clear();
      this.cache.set(ip, hit);
      // A failure is not an answer: the next check asks again.
      hit.then((r) => {
        if (r === 'error') this.cache.delete(ip);
      });
    }
    return hit;
  }

  async check(ip: string, domains: string[]): Promise<RdnsResult> {
    const names = await this.confirmedNames(ip);
    if (names === 'error') return 'unknown';
    if (names === 'nxdomain') return 'mismatch';
    return names.some((n) => domains.some((d) => n.endsWith(d) || `.${n}` === d)) ? 'confirmed' : 'mismatch';
  }
}

/** 1.2.3.4 -> 4.3.2.1.in-addr.arpa; IPv6 -> nibbles under ip6.arpa. */
export function arpaName(ip: string): string {
  const addr = ipaddr.process(ip);
  const bytes = addr.toByteArray();
  if (addr.kind() === 'ipv4') return `${bytes.reverse().join('.')}.in-addr.arpa`;
  const nibbles = bytes.flatMap((b) => [(b >> 4).toString(16), (b & 15).toString(16)]);
  return `${nibbles.reverse().join('.')}.ip6.arpa`;
}

function sameIp(a: string, b: string): boolean {
  try {
    return ipaddr.process(a).toString() === ipaddr.process(b).toString();
  } catch {
    return false;
  }
}

/** Key directories fetched from the agent's origin (through the address policy), cached an hour. */
export function directoryKeyResolver(policy: UrlPolicy, timeoutMs = 3000): KeyResolver {
  const cache = new Map<string, { at: number; keys: Promise<Map<string, KeyObject>> }>();
  return async (keyid, agentUrl) => {
    if (!agentUrl) return null;
    let origin: string;
    try {
      origin = new URL(agentUrl).origin;
    } catch {
      return null;
    }
    let entry = cache.get(origin);
    if (!entry || Date.now() - entry.at > 3600_000) {
      const keys = safeFetch(`${origin}/.well-known/http-message-signatures-directory`, {
        policy,
        timeoutMs,
        maxBytes: 256 * 1024,
        headers: { accept: 'application/http-message-signatures-directory+json, application/json' },
      })
        .then((r) => (r.status === 200 ? parseKeyDirectory(JSON.parse(r.body.toString('utf8'))) : new Map()))
        .catch(() => new Map<string, KeyObject>());
      entry = { at: Date.now(), keys };
      cache.set(origin, entry);
    }
    return (await entry.keys).get(keyid) ?? null;
  };
}

export interface Verifier {
  ranges: AgentIpRanges;
  rdns: RdnsVerifier | null;
  resolveKey: KeyResolver | null;
  nonces: NonceCache;
}

export interface VerifyInput {
  agent: string; // catalogue token or ''
  platform: string;
  ip: string | null;
  signed: SignedRequest | null;
}

const ipCache = new Map<string, 'verified' | 'unverified' | 'unknown'>();

/** Forgets the cached range verdicts: the ranges in use changed (a synced vendor list). */
export function clearRangeCheckCache(): void {
  ipCache.clear();
}

/** The range check alone (synchronous, cached per agent and address). */
export function rangeCheck(
  v: Verifier,
  agent: string,
  ip: string | null,
): 'verified' | 'unverified' | 'unknown' {
  if (!agent || !ip) return 'unknown';
  const k = `${agent}|${ip}`;
  let r = ipCache.get(k);
  if (r === undefined) {
    r = v.ranges.verify(agent, ip);
    if (ipCache.size > 100_000) ipCache.clear();
    ipCache.set(k, r);
  }
  return r;
}

/**
 * Verification decided without waiting for the network: a signature checked first (collect only),
 * then the ranges; `pending` when only reverse DNS can tell, which the verify_agent_visits job
 * settles (settleRdns) so that no look-up ever holds up ingestion.
 */
export async function verifyVisit(v: Verifier, input: VerifyInput): Promise<Verification> {
  if (input.signed && v.resolveKey) {
    const r = await verifyWebBotAuth(input.signed, v.resolveKey, v.nonces);
    if (r.ok) return 'signature';
  }
  return verifyWithoutRdns(v, input);
}

/** Whether verifyVisit can answer without waiting (no signature to check). */
export function quickVerification(v: Verifier, input: VerifyInput): Verification | null {
  if (input.signed && v.resolveKey) return null;
  return verifyWithoutRdns(v, input);
}

/** The ranges' verdict, or `pending` when reverse DNS is needed and enabled. */
export function verifyWithoutRdns(v: Verifier, input: VerifyInput): Verification {
  const range = rangeCheck(v, input.agent, input.ip);
  if (range === 'verified') return 'ip';
  if (v.rdns && input.ip && rdnsDomains(input.agent, input.platform)) return 'pending';
  if (range === 'unverified') return 'spoofed';
  return 'none';
}

/**
 * A pending visit's verdict from its reverse-DNS answer: `rdns` when confirmed, `spoofed` only on
 * a definite answer outside the vendor's domains (or no PTR), `unverified` when the resolver told
 * nothing (a timeout, a failure): retried later, never called spoofed.
 */
export function settleRdns(rdns: RdnsResult): Extract<Verification, 'rdns' | 'spoofed' | 'unverified'> {
  if (rdns === 'confirmed') return 'rdns';
  if (rdns === 'mismatch') return 'spoofed';
  return 'unverified';
}
