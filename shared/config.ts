import path from 'node:path';
import { z } from 'zod';
import { parseAllowlist } from './net/address-policy.ts';

// Every setting comes from the environment, validated once at start. The README's configuration
// table lists the same variables with the same defaults: keep them in step.
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** An optional URL where an empty value (`OPENAI_BASE_URL=` in an env file) means unset. */
const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional());

/** setTimeout's largest delay: a longer one fires at once (Node clamps it to 1 ms). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A whole-number setting within [min, max]. An empty value (`PORT=`) is an error naming the
 * setting, never 0; unset, the default applies.
 */
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v),
    z
      .string()
      .min(1, 'is empty: give a whole number, or remove the line for the default')
      .regex(/^-?[0-9]+$/, 'must be a whole number')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max)),
  );
/** A duration used as a timer, in milliseconds: at most MAX_TIMER_MS (about 24.8 days). */
const ms = (min: number, max = MAX_TIMER_MS) =>
  z.preprocess(
    (v) => (typeof v === 'number' ? String(v) : typeof v === 'string' ? v.trim() : v),
    z
      .string()
      .min(1, 'is empty: give a number of milliseconds, or remove the line for the default')
      .regex(/^-?[0-9]+$/, 'must be a whole number of milliseconds')
      .transform(Number)
      .pipe(z.number().int().min(min).max(max, `must be at most ${max} ms: a longer timer fires at once`)),
  );

const ConfigSchema = z.object({
  PORT: int(0, 65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATABASE_URL: z.string().url().optional(),
  DATA_DIR: z.string().default('.data'),
  EMBEDDED_PG_PORT: int(1, 65535).default(54329),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PUBLIC_SCAN_URL: z.string().url().optional(),
  PUBLIC_GEO_URL: z.string().url().optional(),
  PUBLIC_SITE_URL: z.string().url().optional(),
  DOCS_URL: z.string().url().optional(),
  WORKER_CONCURRENCY: int(1, 64).default(4),
  WORKER_METRICS_PORT: int(0, 65535).default(9464),
  WORKER_SHUTDOWN_TIMEOUT_MS: ms(0).default(30_000),
  BODY_LIMIT: z.string().default('256kb'),
  RATE_LIMIT_IP_DEFAULT: int(1).default(1000),
  /** Polls of GET /api/v1/scans/{id} per hour, per key or per address: a bucket of their own. */
  RATE_LIMIT_POLL: int(1).default(1800),
  TRUST_PROXY: bool.default(false),
  METRICS_TOKEN: z.string().min(16).optional(),
  // Parsed here, so a bad entry stops the process at start (not every scan later, with a 500).
  SCAN_ALLOW_HOSTS: z
    .string()
    .default('')
    .superRefine((v, ctx) => {
      try {
        parseAllowlist(v);
      } catch (err) {
        ctx.addIssue({
          code: 'custom',
          message: `${(err as Error).message.replace(/^SCAN_ALLOW_HOSTS: /, '')} (entries are host, host:port or CIDR, without a scheme)`,
        });
      }
    }),
  SCAN_RETENTION_DAYS: int(1).default(30),
  WEBHOOK_DELIVERY_RETENTION_DAYS: int(1).default(30),
  IDEMPOTENCY_KEY_TTL_HOURS: int(1).default(24),
  MONITOR_ALERT_RETENTION_DAYS: int(1).default(90),
  WATCH_HISTORY_RETENTION_DAYS: int(1).default(400),
  SCAN_CACHE_TTL_SECONDS: int(0).default(900),
  SCAN_WAIT_MS: ms(0, 120_000).default(25_000),
  SCAN_QUICK_DEADLINE_MS: ms(1000).default(60_000),
  SCAN_FULL_DEADLINE_MS: ms(5000).default(240_000),
  /** A scan phase slower than this is logged at info (every phase is at debug). */
  SCAN_SLOW_PHASE_MS: ms(0).default(10_000),
  BROWSER_CONCURRENCY: int(1, 16).default(2),
  /** PSS of the worker's Chromium (browser + Lighthouse) above which browser work is aborted. */
  BROWSER_MEMORY_BUDGET_MB: int(64).default(1536),
  /** RSS of the worker process itself above which its running jobs are stopped (scans fail). */
  WORKER_MEMORY_BUDGET_MB: int(64).default(1536),
  CHROMIUM_PATH: z.string().optional(),
  PUBLIC_SCAN_IP_LIMIT: int(1).default(30),
  STRIPE_LINK_COMPLETE: z.string().url().optional(),
  STRIPE_LINK_FOCUS: z.string().url().optional(),
  // Checkout through Stripe's SDK (docs/operations.md): buying is online once the secret key is
  // set; the webhook secret verifies POST /webhooks/stripe. STRIPE_API_BASE points the SDK at
  // another host (a loopback fake in tests). Price ids (STRIPE_PRICE_<ID>) are read below.
  STRIPE_SECRET_KEY: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  STRIPE_WEBHOOK_SECRET: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(1).optional()),
  STRIPE_API_BASE: optionalUrl,
  STRIPE_CURRENCY: z
    .string()
    .regex(/^[a-z]{3}$/)
    .default('gbp'),
  MONITOR_SCAN_MODE: z.enum(['quick', 'full']).default('quick'),
  MONITOR_FANOUT_BATCH: int(1, 100_000).default(25_000),
  AUDIT_MAX_PAGES: int(1, 500).default(25),
  AUDIT_CRAWL_BUDGET_MS: ms(1000).default(180_000),
  AUDIT_FULL_PAGES: int(0, 10).default(1),
  AUDIT_CONCURRENCY: int(1, 16).default(3),
  AUDIT_MAX_ATTEMPTS: int(1, 10).default(3),
  AGENT_INGEST_EVENTS_PER_HOUR: int(1).default(1_000_000),
  AGENT_EVENTS_RETENTION_DAYS: int(1).default(400),
  AGENT_VERIFY_RDNS: bool.default(true),
  AGENT_RDNS_TIMEOUT_MS: ms(50, 10_000).default(500),
  AGENT_RDNS_SERVERS: z.string().default(''),
  AGENT_VERIFY_CONCURRENCY: int(1, 256).default(16),
  AGENT_CATALOGUE_RELOAD_MS: ms(100, 600_000).default(5000),
  AGENT_CATALOGUE_SOURCES: z.string().default(''),
  AGENT_IP_RANGES_DIR: z.string().optional(),
  // GEO answer engines (docs/geo.md). Each provider is available when its key (or, for the
  // OpenAI-compatible one, its base URL) is set; the key and base-URL names are the SDKs' own.
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: optionalUrl,
  GEO_OPENAI_MODEL: z.string().min(1).default('gpt-5-mini'),
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: optionalUrl,
  GEO_ANTHROPIC_MODEL: z.string().min(1).default('claude-sonnet-4-5'),
  PERPLEXITY_API_KEY: z.string().optional(),
  PERPLEXITY_BASE_URL: optionalUrl,
  GEO_PERPLEXITY_MODEL: z.string().min(1).default('sonar'),
  GEMINI_API_KEY: z.string().optional(),
  GEMINI_BASE_URL: optionalUrl,
  GEO_GEMINI_MODEL: z.string().min(1).default('gemini-2.5-flash'),
  GEO_OPENAI_COMPAT_BASE_URL: optionalUrl,
  GEO_OPENAI_COMPAT_API_KEY: z.string().optional(),
  GEO_OPENAI_COMPAT_MODEL: z.string().min(1).default('llama3.1'),
  GEO_RUNS_PER_PROMPT: int(1, 20).default(3),
  GEO_PROVIDER_CONCURRENCY: int(1, 64).default(4),
  GEO_CALL_TIMEOUT_MS: ms(100).default(90_000),
  GEO_MAX_RETRIES: int(0, 10).default(3),
  GEO_RETRY_BASE_MS: ms(0).default(1_000),
  GEO_RUN_DEADLINE_MS: ms(1000).default(20 * 60_000),
  GEO_MONTHLY_CALL_BUDGET: int(0).default(3_000),
  GEO_WAIT_MS: ms(0, 120_000).default(25_000),
  SMTP_URL: z.preprocess((v) => (v === '' ? undefined : v), z.string().url().optional()), // empty = unset
  MAIL_FROM: z.string().default('Sightline <no-reply@sightline.invalid>'),
  AUTH_IP_LIMIT: int(1).default(30),
  AUTH_EMAIL_LIMIT: int(1).default(10),
  SESSION_TTL_DAYS: int(1, 365).default(30),
  CONSOLE_MAX_KEYS: int(1, 1000).default(5),
  WEB_SCAN_MODE: z.enum(['quick', 'full']).default('full'),
  B_SITES_SCAN_MODE: z.enum(['quick', 'full']).default('full'),
  B_SITES_FANOUT_BATCH: int(1, 100_000).default(25_000),
});

export type Config = z.infer<typeof ConfigSchema> & {
  publicBaseUrl: string;
  publicScanUrl: string;
  publicGeoUrl: string;
  publicSiteUrl: string;
  docsUrl: string;
  dataDir: string;
  /** STRIPE_PRICE_<ID> settings by lower-case id (a product, bundle or plan id): Stripe price ids. */
  stripePrices: Record<string, string>;
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
    stripePrices: stripePrices(env),
  };
}

/** STRIPE_PRICE_COMPLETE_AUDIT_BUNDLE=price_… -> { complete_audit_bundle: 'price_…' }. */
function stripePrices(env: NodeJS.ProcessEnv): Record<string, string> {
  const prices: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    const m = /^STRIPE_PRICE_([A-Z0-9_]+)$/.exec(name);
    if (m && value) prices[m[1]!.toLowerCase()] = value;
  }
  return prices;
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
