import fs from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import type { IpRangeSourceId } from '../agent-catalogue/catalogue.ts';
import { findAgentInUse } from '../agent-catalogue/classify.ts';

// Vendor-published crawler IP ranges. We ship no copy of them: the operator points
// AGENT_IP_RANGES_DIR at a directory holding the vendors' own files (as downloaded from the URLs
// below, either flat or in one sub-folder per vendor). Without them every agent is 'unknown',
// never falsely 'unverified'.

export type IpVerification = 'verified' | 'unverified' | 'unknown';

export interface IpRangeSource {
  vendor: string; // sub-folder name
  files: readonly string[]; // file names to look for, first found wins
  /** For combined lists whose entries carry a service tag: the tag to keep. */
  service?: string;
  publishedAt: string; // where the vendor publishes the list
}

export const IP_RANGE_SOURCES: Record<IpRangeSourceId, IpRangeSource> = {
  'openai-gptbot': {
    vendor: 'openai',
    files: ['gptbot.json'],
    publishedAt: 'https://openai.com/gptbot.json',
  },
  'openai-searchbot': {
    vendor: 'openai',
    files: ['searchbot.json'],
    publishedAt: 'https://openai.com/searchbot.json',
  },
  'openai-chatgpt-user': {
    vendor: 'openai',
    files: ['chatgpt-user.json'],
    publishedAt: 'https://openai.com/chatgpt-user.json',
  },
  anthropic: {
    vendor: 'anthropic',
    files: ['anthropic.json'],
    publishedAt: "Anthropic's support article on its crawlers' addresses",
  },
  'perplexity-bot': {
    vendor: 'perplexity',
    files: ['perplexitybot.json', 'perplexitybot_ips.json'],
    service: 'perplexitybot',
    publishedAt: 'https://www.perplexity.ai/perplexitybot.json',
  },
  'perplexity-user': {
    vendor: 'perplexity',
    files: ['perplexity-user.json', 'perplexitybot_ips.json'],
    service: 'perplexity-user',
    publishedAt: 'https://www.perplexity.ai/perplexity-user.json',
  },
  'google-common': {
    vendor: 'google',
    files: ['googlebot.json'],
    publishedAt: 'https://developers.google.com/static/search/apis/ipranges/googlebot.json',
  },
  'google-user-triggered': {
    vendor: 'google',
    files: ['user-triggered-fetchers-google.json', 'googleutf.json'],
    publishedAt:
      'https://developers.google.com/static/search/apis/ipranges/user-triggered-fetchers-google.json',
  },
  bing: {
    vendor: 'bing',
    files: ['bingbot.json', 'bingbot.netset'],
    publishedAt: 'https://www.bing.com/toolbox/bingbot.json',
  },
};

export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const CIDR_LIKE = /^(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f]*:[0-9a-f:.]*)(?:\/\d{1,3})?$/i;

function toCidr(value: unknown): Cidr | null {
  if (typeof value !== 'string') return null;
  const v = value.trim();
  if (!CIDR_LIKE.test(v)) return null;
  try {
    if (v.includes('/')) return ipaddr.parseCIDR(v);
    const addr = ipaddr.parse(v);
    return [addr, addr.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

const PREFIX_KEYS = ['ipv4Prefix', 'ipv6Prefix', 'ip_prefix', 'ipv6_prefix', 'ip_address', 'prefix', 'cidr'];

function fromEntry(entry: unknown, service?: string): Cidr[] {
  if (typeof entry === 'string') return [toCidr(entry)].filter((c): c is Cidr => c !== null);
  if (typeof entry !== 'object' || entry === null) return [];
  const e = entry as Record<string, unknown>;
  if (service && typeof e.service === 'string' && e.service.toLowerCase() !== service) return [];
  return PREFIX_KEYS.map((k) => toCidr(e[k])).filter((c): c is Cidr => c !== null);
}

/**
 * Parses one vendor file: the `{"prefixes": [{"ipv4Prefix": ...}]}` JSON that Google, OpenAI,
 * Bing and Perplexity publish, a JSON array of entries (optionally tagged with a `service`), or a
 * plain text list with one CIDR per line (ipset `add <set> <cidr>` lines included).
 */
export function parseIpRangeFile(text: string, service?: string): Cidr[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const json: unknown = JSON.parse(trimmed);
    const entries = Array.isArray(json) ? json : (json as { prefixes?: unknown }).prefixes;
    return Array.isArray(entries) ? entries.flatMap((e) => fromEntry(e, service)) : [];
  }
  const out: Cidr[] = [];
  for (const line of trimmed.split('\n')) {
    const content = line.replace(/#.*/, '').trim();
    for (const word of content.split(/\s+/)) {
      const c = toCidr(word);
      if (c) out.push(c);
    }
  }
  return out;
}

export class AgentIpRanges {
  private readonly bySource: Map<IpRangeSourceId, Cidr[]>;
  /** When each source's list was published (its own date), where the file says. */
  private readonly dates: Map<IpRangeSourceId, Date>;
  constructor(
    bySource: ReadonlyMap<IpRangeSourceId, Cidr[]>,
    dates: ReadonlyMap<IpRangeSourceId, Date> = new Map(),
  ) {
    this.bySource = new Map(bySource);
    this.dates = new Map(dates);
  }

  /** Replaces one source's list in place (a synced vendor file): every holder of this object sees it. */
  setSource(source: IpRangeSourceId, ranges: Cidr[], publishedAt: Date | null): void {
    this.bySource.set(source, ranges);
    if (publishedAt) this.dates.set(source, publishedAt);
    else this.dates.delete(source);
  }

  /** When a source's list was published, if known. */
  publishedAt(source: IpRangeSourceId): Date | null {
    return this.dates.get(source) ?? null;
  }

  /**
   * When the ranges that verify `agentToken` were published: traffic from before then may come
   * from addresses the vendor has since retired (null when unknown).
   */
  asOf(agentToken: string): Date | null {
    const source = findAgentInUse(agentToken)?.ipRanges;
    return (source && this.dates.get(source)) || null;
  }

  /** Sources that loaded at least one range. */
  loadedSources(): IpRangeSourceId[] {
    return [...this.bySource.keys()];
  }

  rangeCount(source: IpRangeSourceId): number {
    return this.bySource.get(source)?.length ?? 0;
  }

  verify(agentToken: string, ip: string): IpVerification {
    const source = findAgentInUse(agentToken)?.ipRanges;
    const ranges = source ? this.bySource.get(source) : undefined;
    if (!ranges || ranges.length === 0) return 'unknown';
    let addr: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      addr = ipaddr.process(ip.trim()); // also unwraps IPv4-mapped IPv6 (::ffff:1.2.3.4)
    } catch {
      return 'unknown';
    }
    for (const [net, bits] of ranges) {
      if (net.kind() === addr.kind() && addr.match(net, bits)) return 'verified';
    }
    return 'unverified';
  }
}

/** Reads every known source found in `dir`; missing or unreadable files leave that source out. */
export function loadAgentIpRanges(dir: string): AgentIpRanges {
  const bySource = new Map<IpRangeSourceId, Cidr[]>();
  const dates = new Map<IpRangeSourceId, Date>();
  for (const [id, src] of Object.entries(IP_RANGE_SOURCES) as [IpRangeSourceId, IpRangeSource][]) {
    const file = src.files
      .flatMap((f) => [path.join(dir, src.vendor, f), path.join(dir, f)])
      .find((p) => fs.existsSync(p));
    if (!file) continue;
    try {
      const text = fs.readFileSync(file, 'utf8');
      const ranges = parseIpRangeFile(text, src.service);
      if (ranges.length > 0) bySource.set(id, ranges);
      const date = rangeFileDate(file, text);
      if (date) dates.set(id, new Date(date));
    } catch {
      // A malformed vendor file must not break classification: that source stays unknown.
    }
  }
  return new AgentIpRanges(bySource, dates);
}

/**
 * The day a vendor file was published, as an ISO date: its own `creationTime` (Google, OpenAI,
 * Anthropic JSON), else a sibling `<name>_meta.json`'s `last_changed_date` or `generated_date`
 * (the netset lists); null when neither says.
 */
export function rangeFileDate(file: string, text: string): string | null {
  const iso = (v: unknown) => {
    if (typeof v !== 'string') return null;
    const t = Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(v) ? v : `${v.slice(0, 19)}Z`);
    return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 10);
  };
  try {
    const t = text.trim();
    if (t.startsWith('{')) {
      const d = iso((JSON.parse(t) as { creationTime?: unknown }).creationTime);
      if (d) return d;
    }
  } catch {
    // not JSON after all
  }
  const meta = path.join(path.dirname(file), `${path.basename(file).replace(/\.[^.]+$/, '')}_meta.json`);
  if (!fs.existsSync(meta)) return null;
  try {
    const m = JSON.parse(fs.readFileSync(meta, 'utf8')) as Record<string, unknown>;
    return iso(m.last_changed_date) ?? iso(m.generated_date);
  } catch {
    return null;
  }
}
