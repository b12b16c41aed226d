import path from 'node:path';
import { z } from 'zod';

// Every setting comes from the environment, validated once at start. The README's configuration
// table lists the same variables with the same defaults: keep them in step.
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const ConfigSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PUBLIC_SCAN_URL: z.string().url().optional(),
  PUBLIC_GEO_URL: z.string().url().optional(),
  PUBLIC_SITE_URL: z.string().url().optional(),
  DOCS_URL: z.string().url().optional(),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  WORKER_SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  BODY_LIMIT: z.string().default('256kb'),
  RATE_LIMIT_IP_DEFAULT: z.coerce.number().int().min(1).default(1000),
  /** Polls of GET /api/v1/scans/{id} per hour, per key or per address: a bucket of their own. */
  RATE_LIMIT_POLL: z.coerce.number().int().min(1).default(1800),
  TRUST_PROXY: bool.default(false),
  METRICS_TOKEN: z.string().min(16).optional(),
  SCAN_ALLOW_HOSTS: z.string().default(''),
  SCAN_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  WEBHOOK_DELIVERY_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
  IDEMPOTENCY_KEY_TTL_HOURS: z.coerce.number().int().min(1).default(24),
  MONITOR_ALERT_RETENTION_DAYS: z.coerce.number().int().min(1).default(90),
  SCAN_CACHE_TTL_SECONDS: z.coerce.number().int().min(0).default(900),
  SCAN_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(25_000),
  SCAN_QUICK_DEADLINE_MS: z.coerce.number().int().min(1000).default(60_000),
  SCAN_FULL_DEADLINE_MS: z.coerce.number().int().min(5000).default(240_000),
  BROWSER_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(2),
  /** PSS of the worker's Chromium (browser + Lighthouse) above which browser work is aborted. */
  BROWSER_MEMORY_BUDGET_MB: z.coerce.number().int().min(64).default(1024),
  CHROMIUM_PATH: z.string().optional(),
  PUBLIC_SCAN_IP_LIMIT: z.coerce.number().int().min(1).default(30),
  STRIPE_LINK_COMPLETE: z.string().url().optional(),
  STRIPE_LINK_FOCUS: z.string().url().optional(),
  MONITOR_SCAN_MODE: z.enum(['quick', 'full']).default('quick'),
  MONITOR_FANOUT_BATCH: z.coerce.number().int().min(1).max(100_000).default(2_000),
  AUDIT_MAX_PAGES: z.coerce.number().int().min(1).max(500).default(25),
  AUDIT_CRAWL_BUDGET_MS: z.coerce.number().int().min(1000).default(180_000),
  AUDIT_FULL_PAGES: z.coerce.number().int().min(0).max(10).default(1),
  AUDIT_CONCURRENCY: z.coerce.number().int().min(1).max(16).default(3),
  AUDIT_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
});

export type Config = z.infer<typeof ConfigSchema> & {
  publicBaseUrl: string;
  publicScanUrl: string;
  publicGeoUrl: string;
  publicSiteUrl: string;
  docsUrl: string;
  dataDir: string;
};

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  // All public hosts are this server unless configured otherwise (decisions.md).
  const base = (
    c.PUBLIC_BASE_URL ?? `http://${c.HOST === '0.0.0.0' ? '127.0.0.1' : c.HOST}:${c.PORT}`
  ).replace(/\/$/, '');
  return {
    ...c,
    publicBaseUrl: base,
    publicScanUrl: (c.PUBLIC_SCAN_URL ?? base).replace(/\/$/, ''),
    publicGeoUrl: (c.PUBLIC_GEO_URL ?? base).replace(/\/$/, ''),
    publicSiteUrl: (c.PUBLIC_SITE_URL ?? base).replace(/\/$/, ''),
    docsUrl: c.DOCS_URL ?? `${base}/docs`,
    dataDir: path.resolve(c.DATA_DIR),
  };
}

let cached: Config | undefined;
export function config(): Config {
  cached ??= loadConfig();
  return cached;
}
/** For tests and the CLI, which adjust the environment before first use. */
export function resetConfig(): void {
  cached = undefined;
}
