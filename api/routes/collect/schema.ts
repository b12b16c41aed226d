import { z } from 'zod';
import { validIp } from '../../../shared/agent-traffic/collect.ts';

const EARLIEST = Date.UTC(2000, 0, 1);
const inWindow = (t: string | number) => {
  const ms = new Date(t).getTime();
  return Number.isFinite(ms) && ms >= EARLIEST && ms <= Date.now() + 24 * 3600_000;
};

export const CollectItem = z
  .object({
    time: z
      .union([z.string().max(64), z.number().int()])
      .refine(inWindow, 'time must be an ISO 8601 timestamp or epoch milliseconds between 2000 and tomorrow')
      .describe('When the request was served: ISO 8601 or epoch milliseconds'),
    method: z.string().regex(/^[A-Za-z]{1,16}$/, 'an HTTP method'),
    path: z
      .string()
      .min(1)
      .max(8192)
      .refine(
        (p) => p.startsWith('/') || /^https?:\/\/[^\s]+$/.test(p),
        'a path starting with / or an absolute http(s) URL',
      )
      .describe('Path (with query) or absolute URL of the request'),
    status: z.number().int().min(100).max(599).nullish().describe('Response status the site answered'),
    ip: z
      .string()
      .max(64)
      .refine(validIp, 'an IPv4 or IPv6 address')
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
    site: z
      .string()
      .regex(/^site_[0-9A-Za-z]{16}$/, 'a site_ tracking id')
      .describe('Tracking id of the site'),
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
    invalid: z.number().int().describe('Always 0: a batch with an invalid item is refused whole'),
  })
  .meta({ id: 'CollectResult' });
