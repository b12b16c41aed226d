import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import type { LogFormat } from '../../shared/agent-traffic/log-formats.ts';

// Deterministic synthetic access logs in every supported format, for tests and the bench: the
// same seed gives the same traffic in each format (so formats can be compared), a realistic mix
// of AI agents (verifiable ones inside and outside their vendors' ranges), answer-engine
// referrals, browsers and other bots, spread over `days` days in time order.

export interface GenOptions {
  lines: number;
  days?: number;
  seed?: number;
  start?: Date;
  gzip?: boolean;
  /**
   * Googlebot and bingbot also from 1,000 addresses outside their vendors' published ranges, which
   * only reverse DNS can verify (as in real logs); off by default, which keeps the traffic of a
   * seed as it was.
   */
  rdns?: boolean;
}

const AGENTS: [string, () => string][] = [
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
    () => '20.171.206.7',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
    () => '203.0.113.77',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
    () => '198.51.100.31',
  ],
  [
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
    () => '198.51.100.32',
  ],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', () => '66.249.66.1'],
  ['Mozilla/5.0 (compatible; Bytespider; spider-feedback@bytedance.com)', () => '198.51.100.33'],
  ['CCBot/2.0 (https://commoncrawl.org/faq/)', () => '198.51.100.34'],
  [
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    () => '198.51.100.35',
  ],
];
const RDNS_AGENTS = [
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
];
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
];
const BOTS = [
  'curl/8.5.0',
  'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  'python-requests/2.32.3',
];
const REFERRERS = [
  'https://chatgpt.com/',
  'https://www.perplexity.ai/search?q=x',
  'https://gemini.google.com/',
  'https://www.google.com/',
];

export interface GenRequest {
  time: Date;
  ip: string;
  method: string;
  path: string;
  status: number;
  bytes: number;
  referer: string | null;
  ua: string;
}

export function* generateRequests(o: GenOptions): Generator<GenRequest> {
  let s = o.seed ?? 42;
  const rnd = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
  const start = (o.start ?? new Date(Date.now() - (o.days ?? 7) * 86400_000)).getTime();
  const span = (o.days ?? 7) * 86400_000;
  for (let i = 0; i < o.lines; i++) {
    // Whole seconds, in order, with several requests per second on big logs.
    const time = new Date(Math.floor((start + (span * i) / o.lines) / 1000) * 1000);
    const r = rnd();
    const path = `/${['docs', 'blog', 'pricing', 'products'][Math.floor(rnd() * 4)]}/${Math.floor(rnd() * 500)}`;
    const status = rnd() < 0.05 ? 404 : 200;
    let ua: string;
    let ip: string;
    let referer: string | null = null;
    if (r < 0.35) {
      const k = Math.floor(rnd() * (AGENTS.length + (o.rdns ? RDNS_AGENTS.length : 0)));
      if (k < AGENTS.length) {
        const [a, addr] = AGENTS[k]!;
        ua = a;
        ip = addr();
      } else {
        ua = RDNS_AGENTS[k - AGENTS.length]!;
        ip = `203.0.${113 + Math.floor(rnd() * 4)}.${Math.floor(rnd() * 250)}`;
      }
    } else if (r < 0.4) {
      ua = BROWSERS[Math.floor(rnd() * BROWSERS.length)]!;
      ip = `198.18.${Math.floor(rnd() * 255)}.${Math.floor(rnd() * 255)}`;
      referer = REFERRERS[Math.floor(rnd() * REFERRERS.length)]!;
    } else if (r < 0.9) {
      ua = BROWSERS[Math.floor(rnd() * BROWSERS.length)]!;
      ip = `198.18.${Math.floor(rnd() * 255)}.${Math.floor(rnd() * 255)}`;
    } else {
      ua = BOTS[Math.floor(rnd() * BOTS.length)]!;
      ip = `192.0.2.${Math.floor(rnd() * 255)}`;
    }
    yield { time, ip, method: 'GET', path, status, bytes: 1000 + Math.floor(rnd() * 50000), referer, ua };
  }
}

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n: number) => String(n).padStart(2, '0');
const clfTime = (d: Date) =>
  `${pad(d.getUTCDate())}/${MON[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;

export function formatLine(f: LogFormat, r: GenRequest): string {
  switch (f) {
    case 'combined':
      return `${r.ip} - - [${clfTime(r.time)}] "${r.method} ${r.path} HTTP/1.1" ${r.status} ${r.bytes} "${r.referer ?? '-'}" "${r.ua}"`;
    case 'common':
      return `${r.ip} - - [${clfTime(r.time)}] "${r.method} ${r.path} HTTP/1.1" ${r.status} ${r.bytes}`;
    case 'json':
      return JSON.stringify({
        time: r.time.toISOString(),
        remote_addr: r.ip,
        request_method: r.method,
        request_uri: r.path,
        status: r.status,
        body_bytes_sent: r.bytes,
        http_referer: r.referer ?? '',
        http_user_agent: r.ua,
      });
    case 'cloudfront': {
      const iso = r.time.toISOString();
      return [
        iso.slice(0, 10),
        iso.slice(11, 19),
        'LHR62-C2',
        r.bytes,
        r.ip,
        r.method,
        'd111111abcdef8.cloudfront.net',
        r.path,
        r.status,
        r.referer ?? '-',
        encodeURIComponent(r.ua),
        '-',
      ].join('\t');
    }
    case 'alb':
      return `https ${r.time.toISOString()} app/my-lb/50dc6c495c0c9188 ${r.ip}:51234 10.0.0.1:80 0.000 0.001 0.000 ${r.status} ${r.status} 180 ${r.bytes} "${r.method} https://example.com:443${r.path} HTTP/1.1" "${r.ua}" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/tg/73e2d6bc24d8a067 "Root=1-58337262" "example.com" "-" 0 ${r.time.toISOString()} "forward" "-" "-" "10.0.0.1:80" "${r.status}" "-" "-"`;
    case 'cloudflare':
      return JSON.stringify({
        ClientIP: r.ip,
        ClientRequestHost: 'example.com',
        ClientRequestMethod: r.method,
        ClientRequestURI: r.path,
        ClientRequestUserAgent: r.ua,
        ClientRequestReferer: r.referer ?? '',
        EdgeResponseStatus: r.status,
        EdgeStartTimestamp: r.time.getTime() * 1_000_000,
      });
    case 'vercel':
      return JSON.stringify({
        id: `log-${r.time.getTime()}`,
        source: 'edge',
        timestamp: r.time.getTime(),
        proxy: {
          timestamp: r.time.getTime(),
          method: r.method,
          host: 'example.com',
          path: r.path,
          statusCode: r.status,
          clientIp: r.ip,
          userAgent: [r.ua],
          referer: r.referer ?? undefined,
        },
      });
  }
}

export async function writeLog(file: string, format: LogFormat, o: GenOptions): Promise<void> {
  const out = createWriteStream(file);
  const gz = o.gzip ? createGzip({ level: 1 }) : null;
  if (gz) gz.pipe(out);
  const sink = gz ?? out;
  let buf = '';
  if (format === 'cloudfront')
    buf +=
      '#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query\n';
  for (const r of generateRequests(o)) {
    buf += `${formatLine(format, r)}\n`;
    if (buf.length > 1 << 20) {
      if (!sink.write(buf)) await once(sink, 'drain');
      buf = '';
    }
  }
  sink.end(buf);
  await once(out, 'finish');
}
