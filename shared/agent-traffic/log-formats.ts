import { isIP } from 'node:net';

// Access-log formats `sightline logs import` reads. Each parser turns one line into a request or
// null (a bad line: counted and sampled, never fatal). `auto` looks at the first lines.

export const LOG_FORMATS = [
  'combined',
  'common',
  'json',
  'cloudfront',
  'alb',
  'cloudflare',
  'vercel',
] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface ParsedRequest {
  /** Set by the importer: the request's id. */
  hash?: Buffer | string;
  time: Date;
  method: string;
  path: string;
  status: number | null;
  ip: string | null;
  userAgent: string;
  referer: string | null;
}

export type LineParser = (line: string) => ParsedRequest | null;

/** How a log read: what both an import's summary and a report (--report) begin with. */
export interface LogReading {
  source: string;
  format: LogFormat | null;
  lines: number;
  requests: number;
  badLines: number;
  /** The first few lines no parser could read. */
  badSamples: { line: number; text: string }[];
}

const MONTHS: Record<string, number> = {
  Jan: 0,
  Feb: 1,
  Mar: 2,
  Apr: 3,
  May: 4,
  Jun: 5,
  Jul: 6,
  Aug: 7,
  Sep: 8,
  Oct: 9,
  Nov: 10,
  Dec: 11,
};

/** `17/May/2015:10:05:03 +0000` */
// Consecutive lines of a log mostly share their second: the last parse is reused.
let lastClf: { s: string; ms: number } | null = null;

const digits = (s: string, from: number, n: number): number => {
  let v = 0;
  for (let i = from; i < from + n; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return Number.NaN;
    v = v * 10 + c;
  }
  return v;
};

// The UTC start of the last day and the last zone offset read: consecutive lines share them.
let lastDay = { prefix: '', ms: Number.NaN };
let lastZone = { text: '', ms: Number.NaN };

/** "10/Oct/2000:13:55:36 -0700" read by position, cheaper per line than the regex below. */
function fastClfTime(s: string): Date | null {
  if (s.length !== 26 || s[2] !== '/' || s[6] !== '/' || s[11] !== ':' || s[20] !== ' ') return null;
  // Date.UTC(y, mo, d, h, mi, se) is Date.UTC(y, mo, d) plus the time of day in ms (the spec's
  // MakeDate(MakeDay, MakeTime)), so the day is computed once per day, not once per line.
  if (!s.startsWith(lastDay.prefix) || lastDay.prefix === '') {
    const month = MONTHS[s.slice(3, 6)];
    const day = Date.UTC(digits(s, 7, 4), month ?? Number.NaN, digits(s, 0, 2));
    lastDay = { prefix: s.slice(0, 12), ms: month === undefined ? Number.NaN : day };
  }
  if (!s.endsWith(lastZone.text) || lastZone.text === '') {
    const sign = s[21] === '-' ? -1 : s[21] === '+' ? 1 : Number.NaN;
    lastZone = { text: s.slice(21), ms: sign * (digits(s, 22, 2) * 60 + digits(s, 24, 2)) * 60_000 };
  }
  const ms =
    lastDay.ms +
    digits(s, 12, 2) * 3_600_000 +
    digits(s, 15, 2) * 60_000 +
    digits(s, 18, 2) * 1000 -
    lastZone.ms;
  return Number.isNaN(ms) ? null : new Date(ms);
}

function clfTime(s: string): Date | null {
  if (lastClf?.s === s) return new Date(lastClf.ms);
  const t = fastClfTime(s) ?? parseClfTime(s);
  if (t) lastClf = { s, ms: t.getTime() };
  return t;
}

function parseClfTime(s: string): Date | null {
  const m = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(s);
  if (!m) return null;
  const month = MONTHS[m[2]!];
  if (month === undefined) return null;
  const offset = (m[7] === '-' ? -1 : 1) * (Number(m[8]) * 60 + Number(m[9])) * 60_000;
  return new Date(Date.UTC(+m[3]!, month, +m[1]!, +m[4]!, +m[5]!, +m[6]!) - offset);
}

const cleanIp = (ip: string | undefined | null): string | null => {
  if (!ip || ip === '-') return null;
  const v = ip.trim();
  return isIP(v) ? v : null;
};

/** "GET /path HTTP/1.1" -> method and path (also absolute-form targets). */
function requestLine(r: string): { method: string; path: string } | null {
  const m = /^([A-Z]{1,16}) (\S+)(?: HTTP\/[\d.]+)?$/.exec(r);
  if (!m) return null;
  let path = m[2]!;
  if (!path.startsWith('/')) {
    if (!/^https?:\/\//i.test(path)) return path === '*' ? { method: m[1]!, path: '*' } : null;
    try {
      const u = new URL(path);
      path = u.pathname + u.search;
    } catch {
      return null;
    }
  }
  return { method: m[1]!, path };
}

const CLF =
  /^(\S+) \S+ (?:\S+|"[^"]*") \[([^\]]+)\] "((?:[^"\\]|\\.)*)" (\d{3}|-) (?:\d+|-)(?: "((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"?)?/; // a cut-off last line may lack its closing quote
const unquote = (s: string | undefined) =>
  s === undefined ? '' : s.includes('\\') ? s.replace(/\\(["\\])/g, '$1') : s;

function clf(line: string, needAgent: boolean): ParsedRequest | null {
  const m = CLF.exec(line);
  if (!m) return null;
  if (needAgent && m[6] === undefined) return null;
  const time = clfTime(m[2]!);
  if (!time) return null;
  // Some servers log a host name instead of the address: the request is kept, without an address.
  const ip = cleanIp(m[1]);
  const rl = requestLine(unquote(m[3]));
  if (!rl) return null;
  const referer = unquote(m[5]);
  return {
    time,
    method: rl.method,
    path: rl.path,
    status: m[4] === '-' ? null : Number(m[4]),
    ip,
    userAgent: m[6] === undefined ? '' : unquote(m[6]),
    referer: referer && referer !== '-' ? referer : null,
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const first = (v: unknown): string | undefined => (Array.isArray(v) ? str(v[0]) : str(v));

function anyTime(v: unknown): Date | null {
  if (typeof v === 'number') {
    // seconds, milliseconds or nanoseconds since the epoch
    const ms = v > 1e17 ? v / 1e6 : v > 1e11 ? v : v * 1000;
    const d = new Date(ms);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  if (typeof v === 'string') {
    const clfT = clfTime(v.replace(/^\[|\]$/g, ''));
    if (clfT) return clfT;
    if (/^\d+(?:\.\d+)?$/.test(v)) return anyTime(Number(v));
    const d = new Date(v);
    return Number.isNaN(d.getTime()) ? null : d;
  }
  return null;
}

function fromObject(
  o: Record<string, unknown>,
  fields: {
    time: unknown;
    method: unknown;
    path: unknown;
    status: unknown;
    ip: unknown;
    ua: unknown;
    referer: unknown;
  },
): ParsedRequest | null {
  const time = anyTime(fields.time);
  if (!time) return null;
  let method = str(fields.method);
  let path = str(fields.path);
  if (!method && typeof o.request === 'string') {
    const rl = requestLine(o.request);
    if (rl) ({ method, path } = rl);
  }
  if (!method || !path) return null;
  if (!path.startsWith('/')) {
    try {
      const u = new URL(path);
      path = u.pathname + u.search;
    } catch {
      return null;
    }
  }
  const status = Number(fields.status);
  const ref = first(fields.referer);
  return {
    time,
    method: method.toUpperCase(),
    path,
    status: Number.isInteger(status) && status >= 100 && status <= 599 ? status : null,
    ip: cleanIp(first(fields.ip)),
    userAgent: first(fields.ua) ?? '',
    referer: ref && ref !== '-' ? ref : null,
  };
}

function parseJson(line: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(line);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** Generic JSON lines: nginx/Apache JSON log formats, Caddy's access log, or our own collect item shape. */
function json(line: string): ParsedRequest | null {
  const o = parseJson(line);
  if (!o) return null;
  const req = o.request && typeof o.request === 'object' ? (o.request as Record<string, unknown>) : null;
  if (req) {
    // Caddy: {"ts": 1700000000.1, "request": {"remote_ip", "method", "uri", "headers": {"User-Agent": [...]}}, "status"}
    const h = (req.headers ?? {}) as Record<string, unknown>;
    return fromObject(o, {
      time: o.ts ?? o.time ?? o.timestamp,
      method: req.method,
      path: req.uri,
      status: o.status,
      ip: req.client_ip ?? req.remote_ip,
      ua: h['User-Agent'] ?? h['user-agent'],
      referer: h.Referer ?? h.referer,
    });
  }
  return fromObject(o, {
    time: o.time ?? o.timestamp ?? o['@timestamp'] ?? o.time_local ?? o.time_iso8601 ?? o.ts,
    method: o.method ?? o.request_method,
    path: o.path ?? o.uri ?? o.request_uri ?? o.url,
    status: o.status ?? o.status_code,
    ip: o.ip ?? o.remote_addr ?? o.client_ip ?? o.clientIp,
    ua: o.user_agent ?? o.http_user_agent ?? o.userAgent ?? o.ua,
    referer: o.referer ?? o.http_referer ?? o.referrer,
  });
}

/** Cloudflare Logpush (HTTP requests dataset), JSON lines. */
function cloudflare(line: string): ParsedRequest | null {
  const o = parseJson(line);
  if (!o) return null;
  return fromObject(o, {
    time: o.EdgeStartTimestamp,
    method: o.ClientRequestMethod,
    path: o.ClientRequestURI ?? o.ClientRequestPath,
    status: o.EdgeResponseStatus ?? o.OriginResponseStatus,
    ip: o.ClientIP,
    ua: o.ClientRequestUserAgent,
    referer: o.ClientRequestReferer,
  });
}

/** Vercel log drains: {"timestamp": ms, "proxy": {method, path, statusCode, clientIp, userAgent: [...], referer}}. */
function vercel(line: string): ParsedRequest | null {
  const o = parseJson(line);
  const p = o?.proxy && typeof o.proxy === 'object' ? (o.proxy as Record<string, unknown>) : null;
  if (!o || !p) return null;
  return fromObject(o, {
    time: p.timestamp ?? o.timestamp,
    method: p.method,
    path: p.path,
    status: p.statusCode,
    ip: p.clientIp,
    ua: p.userAgent,
    referer: p.referer,
  });
}

/** AWS ALB access logs (space-separated, quoted request and user agent). */
const ALB =
  /^(?:http|https|h2|grpcs|ws|wss) (\S+) \S+ (\S+) \S+ \S+ \S+ \S+ (\d{3}|-) \S+ \S+ \S+ "([^"]*)" "((?:[^"\\]|\\.)*)"/;
function alb(line: string): ParsedRequest | null {
  const m = ALB.exec(line);
  if (!m) return null;
  const time = anyTime(m[1]);
  if (!time) return null;
  const client = m[2]!;
  const ip = cleanIp(client.slice(0, client.lastIndexOf(':')).replace(/^\[|\]$/g, ''));
  const rl = requestLine(m[4]!);
  if (!rl) return null;
  return {
    time,
    method: rl.method,
    path: rl.path,
    status: m[3] === '-' ? null : Number(m[3]),
    ip,
    userAgent: unquote(m[5]),
    referer: null,
  };
}

/** CloudFront standard logs (W3C, tab-separated; `#Fields:` names the columns). */
const CLOUDFRONT_FIELDS = [
  'date',
  'time',
  'x-edge-location',
  'sc-bytes',
  'c-ip',
  'cs-method',
  'cs(Host)',
  'cs-uri-stem',
  'sc-status',
  'cs(Referer)',
  'cs(User-Agent)',
  'cs-uri-query',
];
function cloudfrontParser(): LineParser {
  let fields = CLOUDFRONT_FIELDS;
  const dec = (s: string | undefined) => {
    if (!s || s === '-') return '';
    try {
      // CloudFront encodes spaces and some characters twice (%2520).
      return decodeURIComponent(decodeURIComponent(s.replace(/\+/g, ' ')));
    } catch {
      return s;
    }
  };
  return (line) => {
    if (line.startsWith('#')) {
      if (line.startsWith('#Fields:')) fields = line.slice(8).trim().split(/\s+/);
      return HEADER;
    }
    const cols = line.split('\t');
    if (cols.length < 9) return null;
    const get = (name: string) => cols[fields.indexOf(name)];
    const time = anyTime(`${get('date')}T${get('time')}Z`);
    if (!time) return null;
    const method = get('cs-method');
    const stem = get('cs-uri-stem');
    if (!method || !stem) return null;
    const query = get('cs-uri-query');
    const status = Number(get('sc-status'));
    const ref = dec(get('cs(Referer)'));
    return {
      time,
      method,
      path: stem + (query && query !== '-' ? `?${query}` : ''),
      status: Number.isInteger(status) && status >= 100 ? status : null,
      ip: cleanIp(get('c-ip')),
      userAgent: dec(get('cs(User-Agent)')),
      referer: ref || null,
    };
  };
}

/** Returned by parsers for header and comment lines: not a request, not a bad line. */
export const HEADER: ParsedRequest = Object.freeze<ParsedRequest>({
  time: new Date(0),
  method: '',
  path: '',
  status: null,
  ip: null,
  userAgent: '',
  referer: null,
}) as ParsedRequest;

export function parserFor(format: LogFormat): LineParser {
  switch (format) {
    case 'combined':
      return (l) => clf(l, true);
    case 'common':
      return (l) => clf(l, false);
    case 'json':
      return json;
    case 'cloudflare':
      return cloudflare;
    case 'vercel':
      return vercel;
    case 'alb':
      return alb;
    case 'cloudfront':
      return cloudfrontParser();
  }
}

/** Guesses the format from the first lines of a file. */
export function detectFormat(lines: string[]): LogFormat | null {
  const sample = lines.filter((l) => l.trim() !== '').slice(0, 20);
  if (sample.length === 0) return null;
  if (sample.some((l) => l.startsWith('#Version') || l.startsWith('#Fields'))) return 'cloudfront';
  const firstLine = sample[0]!;
  if (firstLine.startsWith('{')) {
    const o = parseJson(firstLine);
    if (!o) return null;
    if ('ClientIP' in o || 'ClientRequestURI' in o) return 'cloudflare';
    if ('proxy' in o) return 'vercel';
    return 'json';
  }
  if (ALB.test(firstLine)) return 'alb';
  const combined = sample.filter((l) => clf(l, true)).length;
  const common = sample.filter((l) => clf(l, false)).length;
  if (combined >= common && combined > 0) return 'combined';
  if (common > 0) return 'common';
  return null;
}
