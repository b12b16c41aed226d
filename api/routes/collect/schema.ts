import { z } from 'zod';
import { EARLIEST_EVENT_MS, validIp } from '../../../shared/agent-traffic/collect.ts';

const inWindow = (t: string | number) => {
  const ms = new Date(t).getTime();
  return Number.isFinite(ms) && ms >= EARLIEST_EVENT_MS && ms <= Date.now() + 24 * 3600_000;
};
const METHOD = /^[A-Za-z]{1,16}$/;
const ABSOLUTE_URL = /^https?:\/\/[^\s]+$/;
// A path is absolute, or a URL that new URL() also accepts: the regex alone lets through URLs it
// refuses (a port past 65535, "http://[bad"), on which requestPath would throw a 500 instead of a
// 400 naming the item. Both the zod schema and the quick path (plainValidItem) check paths here.
const validPath = (p: string) => p.startsWith('/') || (ABSOLUTE_URL.test(p) && URL.canParse(p));
const TRACKING_ID = /^site_[0-9A-Za-z]{16}$/;

export const CollectItem = z
  .object({
    time: z
      .union([z.string().max(64).meta({ format: 'date-time' }), z.number().int()])
      .refine(inWindow, 'time must be an ISO 8601 timestamp or epoch milliseconds between 2000 and tomorrow')
      .describe('When the request was served: ISO 8601 or epoch milliseconds'),
    method: z.string().regex(METHOD, 'an HTTP method'),
    path: z
      .string()
      .min(1)
      .max(8192)
      .refine(validPath, 'a path starting with / or an absolute http(s) URL')
      .meta({ pattern: '^(/|https?://)' })
      .describe('Path (with query) or absolute URL of the request'),
    status: z.number().int().min(100).max(599).nullish().describe('Response status the site answered'),
    ip: z
      .string()
      .max(64)
      .refine(validIp, 'an IPv4 or IPv6 address')
      .meta({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] })
      .describe('Client address (not a proxy’s)'),
    user_agent: z.string().max(4096),
    referer: z.string().max(4096).nullish(),
    headers: z
      .record(z.string().max(128), z.string().max(8192))
      .optional()
      .describe(
        'Other request headers; Signature, Signature-Input and Signature-Agent enable Web Bot Auth verification',
      ),
  })
  .meta({ id: 'CollectRequest' });

export const CollectBody = z
  .object({
    site: z.string().regex(TRACKING_ID, 'a site_ tracking id').describe('Tracking id of the site'),
    requests: z.array(CollectItem).min(1).max(1000),
  })
  .meta({ id: 'CollectBatch' });

export const CollectResult = z
  .object({
    received: z.number().int(),
    agents: z.number().int().describe('Requests classified as agent visits'),
    stored: z.number().int().describe('Agent events newly stored (the rest were already stored)'),
    duplicates: z.number().int(),
    ai_referrals: z.number().int().describe('Human visits referred by answer engines'),
    humans_ignored: z.number().int(),
    bots_ignored: z.number().int().describe('Automated clients that are not AI or search agents'),
    expired: z
      .number()
      .int()
      .describe(
        'Requests older than the raw-event retention (AGENT_EVENTS_RETENTION_DAYS): neither stored nor counted',
      ),
    pending_verification: z
      .number()
      .int()
      .describe(
        'Of the events stored, those waiting for their reverse-DNS look-up (`verification: pending`): settled by the worker within minutes',
      ),
    invalid: z.number().int().describe('Always 0: a batch with an invalid item is refused whole'),
  })
  .meta({ id: 'CollectResult' });

const ITEM_KEYS = new Set(['time', 'method', 'path', 'status', 'ip', 'user_agent', 'referer']);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalText = (v: unknown, max: number) =>
  v === undefined || v === null || (typeof v === 'string' && v.length <= max);

/** An item CollectItem passes as it is. Items with headers (or any other key) are left to zod. */
function plainValidItem(v: unknown): boolean {
  if (!isObject(v)) return false;
  for (const k of Object.keys(v)) if (!ITEM_KEYS.has(k)) return false;
  const { time, method, path, status, ip, user_agent: ua, referer } = v;
  return (
    (typeof time === 'number'
      ? Number.isSafeInteger(time) && inWindow(time)
      : typeof time === 'string' && time.length <= 64 && inWindow(time)) &&
    typeof method === 'string' &&
    METHOD.test(method) &&
    typeof path === 'string' &&
    path.length >= 1 &&
    path.length <= 8192 &&
    validPath(path) &&
    (status === undefined ||
      status === null ||
      (typeof status === 'number' && Number.isSafeInteger(status) && status >= 100 && status <= 599)) &&
    typeof ip === 'string' &&
    ip.length <= 64 &&
    validIp(ip) &&
    typeof ua === 'string' &&
    ua.length <= 4096 &&
    optionalText(referer, 4096)
  );
}

/**
 * CollectBody's quick path (RouteDef.validBody): the body itself when zod would accept it and
 * return an equal value (no unknown keys to strip, no headers), otherwise undefined and zod
 * parses it (and names the errors). A batch holds up to 1,000 items: zod's parse of them is a
 * visible share of the call.
 */
export function validCollectBody(raw: unknown): z.output<typeof CollectBody> | undefined {
  if (!isObject(raw)) return undefined;
  for (const k of Object.keys(raw)) if (k !== 'site' && k !== 'requests') return undefined;
  const { site, requests } = raw;
  if (typeof site !== 'string' || !TRACKING_ID.test(site)) return undefined;
  if (!Array.isArray(requests) || requests.length < 1 || requests.length > 1000) return undefined;
  for (const item of requests) if (!plainValidItem(item)) return undefined;
  return raw as z.output<typeof CollectBody>;
}
