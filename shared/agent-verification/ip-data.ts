import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ipaddr from 'ipaddr.js';
import type { IpRangeSourceId } from '../agent-catalogue/catalogue.ts';
import {
  AgentIpRanges,
  IP_RANGE_SOURCES,
  type IpRangeSource,
  loadAgentIpRanges,
  parseIpRangeFile,
  rangeFileDate,
} from './ip-ranges.ts';

// The vendors' published crawler ranges ship with the project as one compact data file
// (data/ip-ranges.json), derived from the vendors' own files by `sightline sites refresh-ranges
// --from DIR`. AGENT_IP_RANGES_DIR, when set, is read instead (the vendors' files as downloaded).

export const SHIPPED_RANGES_FILE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  'data',
  'ip-ranges.json',
);

export interface RangeData {
  note: string;
  generatedFrom: string;
  /** The day the snapshot was built (YYYY-MM-DD): what its age is counted from. */
  generatedAt?: string;
  sources: Partial<
    Record<IpRangeSourceId, { publishedAt: string; file: string; asOf?: string; ranges: string[] }>
  >;
}

/** Reads the vendor files under `dir` (flat or one folder per vendor) into the compact form. */
export function buildRangeData(dir: string): RangeData {
  const sources: RangeData['sources'] = {};
  for (const [id, src] of Object.entries(IP_RANGE_SOURCES) as [IpRangeSourceId, IpRangeSource][]) {
    const file = src.files
      .flatMap((f) => [path.join(dir, src.vendor, f), path.join(dir, f)])
      .find((p) => fs.existsSync(p));
    if (!file) continue;
    const text = fs.readFileSync(file, 'utf8');
    const ranges = parseIpRangeFile(text, src.service).map(([addr, bits]) => `${addr.toString()}/${bits}`);
    const asOf = rangeFileDate(file, text) ?? undefined;
    if (ranges.length)
      sources[id] = { publishedAt: src.publishedAt, file: path.relative(dir, file), asOf, ranges };
  }
  return {
    note: 'Vendor-published crawler IP ranges (OpenAI, Google via jonhadfield/cloud-ips Apache-2.0, OpenAI via FabrizioCafolla/openai-crawlers-ip-ranges MIT, Anthropic, Bing and Perplexity transcribed). Regenerate with `sightline sites refresh-ranges --from DIR`.',
    generatedFrom: path.basename(path.resolve(dir)),
    generatedAt: new Date().toISOString().slice(0, 10),
    sources,
  };
}

export function rangesFromData(data: RangeData): AgentIpRanges {
  const map = new Map<IpRangeSourceId, [ipaddr.IPv4 | ipaddr.IPv6, number][]>();
  const dates = new Map<IpRangeSourceId, Date>();
  for (const [id, src] of Object.entries(data.sources) as [
    IpRangeSourceId,
    { ranges: string[]; asOf?: string },
  ][]) {
    map.set(
      id,
      src.ranges.map((c) => ipaddr.parseCIDR(c)),
    );
    if (src.asOf) dates.set(id, new Date(src.asOf));
  }
  return new AgentIpRanges(map, dates);
}

let loaded: AgentIpRanges | undefined;
/** The vendors' files in `dir` (AGENT_IP_RANGES_DIR) when set, else the shipped data; read once per process. */
export function agentIpRanges(dir: string | undefined): AgentIpRanges {
  if (loaded) return loaded;
  if (dir) loaded = loadAgentIpRanges(dir);
  else if (fs.existsSync(SHIPPED_RANGES_FILE))
    loaded = rangesFromData(JSON.parse(fs.readFileSync(SHIPPED_RANGES_FILE, 'utf8')) as RangeData);
  else loaded = new AgentIpRanges(new Map());
  return loaded;
}
