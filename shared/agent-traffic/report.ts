import { classifyVisit } from '../agent-catalogue/classify-visit.ts';
import { rangeCheck, rdnsDomains, type Verifier } from '../agent-verification/verify.ts';
import { openLog } from './import.ts';
import {
  detectFormat,
  HEADER,
  type LineParser,
  type LogFormat,
  type LogReading,
  type ParsedRequest,
  parserFor,
} from './log-formats.ts';
import { pageKey } from './page-key.ts';
import { aiReferral } from './referrals.ts';

// `sightline logs import --report`: a log analysed into a report and stored nowhere, so a log of
// any age can be read (an import refuses what is past AGENT_EVENTS_RETENTION_DAYS). The same
// parsing, classification and page keys as an import; verification by the shipped ranges only,
// judged at the request's own time: an address outside today's ranges in traffic from before the
// ranges were published is `ranges-changed` ("ranges have changed since"), not `spoofed`, and a
// visit only reverse DNS could verify is `not-checked` (a report makes no look-ups; today's names
// say little about old addresses anyway). Memory is bounded: at most MAX_PATHS distinct pages are
// counted one by one, the rest together.

export type ReportVerification = 'ip' | 'none' | 'not-checked' | 'ranges-changed' | 'spoofed';
const MAX_PATHS = 50_000;

interface AgentTally {
  platform: string;
  agent: string | null;
  type: string | null;
  visits: number;
  errors: number;
  verification: Record<ReportVerification, number>;
}

export interface LogReport extends LogReading {
  /** First and last request time (ISO 8601), null for a log without requests. */
  from: string | null;
  to: string | null;
  agentVisits: number;
  aiReferrals: number;
  humans: number;
  otherBots: number;
  verification: Record<ReportVerification, number>;
  agents: AgentTally[];
  topPages: { path: string; visits: number }[];
  /** Agent visits to pages past the first MAX_PATHS distinct ones (counted together). */
  otherPagesVisits: number;
  seconds: number;
}

const emptyMix = (): Record<ReportVerification, number> => ({
  ip: 0,
  none: 0,
  'not-checked': 0,
  'ranges-changed': 0,
  spoofed: 0,
});

/** An agent visit's verification in a report: the ranges, judged at the request's time. */
export function historicVerification(
  v: Verifier,
  input: { agent: string; platform: string; ip: string | null; time: Date },
): ReportVerification {
  const range = rangeCheck(v, input.agent, input.ip);
  if (range === 'verified') return 'ip';
  const asOf = input.agent ? v.ranges.asOf(input.agent) : null;
  if (range === 'unverified' && asOf && input.time < asOf) return 'ranges-changed';
  if (input.ip && rdnsDomains(input.agent, input.platform)) return 'not-checked';
  return range === 'unverified' ? 'spoofed' : 'none';
}

export async function reportLog(
  file: string,
  opts: { format: LogFormat | 'auto'; verifier: Verifier },
): Promise<LogReport> {
  const started = Date.now();
  const { lines } = await openLog(file);
  const r: LogReport = {
    source: file === '-' ? 'stdin' : file,
    format: opts.format === 'auto' ? null : opts.format,
    lines: 0,
    requests: 0,
    badLines: 0,
    badSamples: [],
    from: null,
    to: null,
    agentVisits: 0,
    aiReferrals: 0,
    humans: 0,
    otherBots: 0,
    verification: emptyMix(),
    agents: [],
    topPages: [],
    otherPagesVisits: 0,
    seconds: 0,
  };
  const tallies = new Map<string, AgentTally>();
  const pages = new Map<string, number>();
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  let parser: LineParser | null = r.format ? parserFor(r.format) : null;
  const head: string[] = [];

  const handle = (line: string, lineNo: number) => {
    if (line.trim() === '') return;
    const req = parser!(line);
    if (req === HEADER) return;
    if (!req) {
      r.badLines++;
      if (r.badSamples.length < 5) r.badSamples.push({ line: lineNo, text: line.slice(0, 300) });
      return;
    }
    r.requests++;
    const t = req.time.getTime();
    if (t < first) first = t;
    if (t > last) last = t;
    const c = classifyVisit(req.userAgent);
    if (!(c.agent || c.isAi)) {
      if (c.isBot) r.otherBots++;
      else if (aiReferral(req.referer, req.path)) r.aiReferrals++;
      else r.humans++;
      return;
    }
    countAgent(r, tallies, pages, req, c, opts.verifier);
  };

  let lineNo = 0;
  for await (const chunk of lines)
    for (const line of chunk) {
      lineNo++;
      r.lines++;
      if (parser) {
        handle(line, lineNo);
        continue;
      }
      head.push(line);
      if (head.length < 20) continue;
      parser = detected(r, head);
      for (const [i, l] of head.entries()) handle(l, lineNo - head.length + 1 + i);
      head.length = 0;
    }
  if (!parser && head.length) {
    parser = detected(r, head);
    for (const [i, l] of head.entries()) handle(l, i + 1);
  }
  if (r.requests) {
    r.from = new Date(first).toISOString();
    r.to = new Date(last).toISOString();
  }
  r.agents = [...tallies.values()].sort((a, b) => b.visits - a.visits);
  r.topPages = [...pages]
    .sort(([pa, a], [pb, b]) => b - a || (pa < pb ? -1 : 1))
    .slice(0, 20)
    .map(([path, visits]) => ({ path, visits }));
  r.seconds = Math.round((Date.now() - started) / 100) / 10;
  return r;
}

/** One agent visit into the report: its agent's tally, the verification mix, its page. */
function countAgent(
  r: LogReport,
  tallies: Map<string, AgentTally>,
  pages: Map<string, number>,
  req: ParsedRequest,
  c: ReturnType<typeof classifyVisit>,
  verifier: Verifier,
): void {
  const platform = c.platform ?? 'Other';
  const agent = c.agent ?? '';
  const v = historicVerification(verifier, { agent, platform, ip: req.ip, time: req.time });
  const key = `${platform}\u0000${agent}\u0000${c.type ?? ''}`;
  let tally = tallies.get(key);
  if (!tally) {
    tally = {
      platform,
      agent: c.agent ?? null,
      type: c.type ?? null,
      visits: 0,
      errors: 0,
      verification: emptyMix(),
    };
    tallies.set(key, tally);
  }
  tally.visits++;
  if (req.status !== null && req.status >= 400) tally.errors++;
  tally.verification[v]++;
  r.verification[v]++;
  r.agentVisits++;
  const page = pageKey(req.path);
  const n = pages.get(page);
  if (n !== undefined) pages.set(page, n + 1);
  else if (pages.size < MAX_PATHS) pages.set(page, 1);
  else r.otherPagesVisits++;
}

function detected(r: LogReport, head: string[]): LineParser {
  r.format = detectFormat(head);
  if (!r.format) throw new Error('could not detect the log format; pass --format');
  return parserFor(r.format);
}
