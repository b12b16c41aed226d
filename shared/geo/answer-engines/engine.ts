import type { StoredCitation, StoredSource, TokenUsage } from '../../db/tables/geo.ts';

// One interface for every answer engine. A provider asks one prompt and returns the answer text,
// the URLs the answer cites (in the order it cites them), the sources its search looked at, and
// token usage. Retries, concurrency caps and deadlines live in ask.ts, not in the providers: every
// SDK is built with its own retries off, so one policy (honouring Retry-After) applies to all.

export type ProviderId = 'openai' | 'anthropic' | 'perplexity' | 'gemini' | 'openai_compatible';

export const PROVIDER_IDS: ProviderId[] = [
  'openai',
  'anthropic',
  'perplexity',
  'gemini',
  'openai_compatible',
];

export interface EngineAnswer {
  text: string;
  /** Cited URLs in answer order, de-duplicated; position is 1-based. */
  citations: StoredCitation[];
  /** URLs the engine's search returned (cited or not). */
  sources: StoredSource[];
  usage: TokenUsage;
  model: string;
}

export interface AskOptions {
  signal: AbortSignal;
  /** Per-call timeout handed to the SDK. */
  timeoutMs: number;
}

export interface AnswerEngine {
  id: ProviderId;
  model: string;
  /** false for engines that cannot cite (plain OpenAI-compatible servers): mentions only. */
  cites: boolean;
  ask(prompt: string, opts: AskOptions): Promise<EngineAnswer>;
}

export type EngineErrorCode =
  | 'provider_rate_limited'
  | 'provider_error'
  | 'provider_timeout'
  | 'provider_unreachable'
  | 'provider_malformed'
  | 'provider_auth';

/** A provider call that failed, in words a subscriber can act on. */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly provider: ProviderId,
    readonly status?: number,
    /** Seconds the provider asked us to wait (Retry-After), when it said. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'EngineError';
  }
  get retryable(): boolean {
    return (
      this.code === 'provider_rate_limited' ||
      this.code === 'provider_unreachable' ||
      (this.code === 'provider_error' && (this.status === undefined || this.status >= 500))
    );
  }
}

/** Retry-After as seconds: delta-seconds or an HTTP date. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, (at - now) / 1000);
}

function headerOf(headers: unknown, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const v = (headers as Record<string, unknown>)[name];
  return typeof v === 'string' ? v : undefined;
}

/**
 * Turns whatever an SDK threw into an EngineError. The Stainless SDKs (openai, anthropic,
 * perplexity) throw APIError with `status` and `headers`; connection failures and timeouts carry
 * no status; @google/genai throws ApiError with `status` only.
 */
export function toEngineError(err: unknown, provider: ProviderId, retryAfterHint?: string): EngineError {
  if (err instanceof EngineError) return err;
  const e = err as { status?: unknown; headers?: unknown; name?: string; message?: string; cause?: unknown };
  const message = e?.message ?? String(err);
  const name = e?.name ?? '';
  if (/timeout/i.test(name) || /timed? ?out/i.test(message)) {
    return new EngineError('provider_timeout', `${provider} did not answer in time: ${message}`, provider);
  }
  if (name === 'AbortError' || /abort/i.test(name)) {
    return new EngineError('provider_timeout', `${provider} call was cut off by the run deadline`, provider);
  }
  const status = typeof e?.status === 'number' ? e.status : undefined;
  if (status === undefined) {
    if (err instanceof SyntaxError || /JSON/.test(message)) {
      return new EngineError(
        'provider_malformed',
        `${provider} answered with a body that is not JSON: ${message}`,
        provider,
      );
    }
    return new EngineError('provider_unreachable', `${provider} could not be reached: ${message}`, provider);
  }
  const retryAfter = parseRetryAfter(headerOf(e.headers, 'retry-after') ?? retryAfterHint);
  if (status === 429) {
    return new EngineError(
      'provider_rate_limited',
      `${provider} rate-limited the call (429)`,
      provider,
      429,
      retryAfter,
    );
  }
  if (status === 401 || status === 403) {
    return new EngineError(
      'provider_auth',
      `${provider} refused the API key (${status}): ${message}`,
      provider,
      status,
    );
  }
  return new EngineError(
    'provider_error',
    `${provider} answered ${status}: ${message}`,
    provider,
    status,
    retryAfter,
  );
}

/** Dedupe cited URLs keeping first-appearance order; positions 1..n. */
export function orderCitations(items: { url: string; title?: string | null }[]): StoredCitation[] {
  const seen = new Set<string>();
  const out: StoredCitation[] = [];
  for (const it of items) {
    if (!it.url || seen.has(it.url)) continue;
    seen.add(it.url);
    out.push({ url: it.url, title: it.title ?? null, position: out.length + 1 });
  }
  return out;
}

export function dedupeSources(items: { url: string; title?: string | null }[]): StoredSource[] {
  const seen = new Set<string>();
  const out: StoredSource[] = [];
  for (const it of items) {
    if (!it.url || seen.has(it.url)) continue;
    seen.add(it.url);
    out.push({ url: it.url, title: it.title ?? null });
  }
  return out;
}

export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
