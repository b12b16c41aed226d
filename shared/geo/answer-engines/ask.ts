import pLimit, { type LimitFunction } from 'p-limit';
import { geoProviderCalls } from '../../metrics.ts';
import {
  type AnswerEngine,
  type EngineAnswer,
  EngineError,
  type ProviderId,
  toEngineError,
} from './engine.ts';

// Every provider call goes through here: a per-provider concurrency cap (shared by all runs in
// this process), and retries on 429 / 5xx / connection failures with exponential backoff, waiting
// what Retry-After asks when the provider says. A wait that would pass the run's deadline is not
// started: the call fails at once with the provider's own error.

const limiters = new Map<ProviderId, { concurrency: number; limit: LimitFunction }>();

export function limiterFor(id: ProviderId, concurrency: number): LimitFunction {
  let l = limiters.get(id);
  if (!l || l.concurrency !== concurrency) {
    l = { concurrency, limit: pLimit(concurrency) };
    limiters.set(id, l);
  }
  return l.limit;
}

export interface RetryPolicy {
  maxRetries: number;
  baseMs: number;
  /** Longest single wait honoured (Retry-After included). */
  maxWaitMs?: number;
  timeoutMs: number;
  signal: AbortSignal;
  /** When the run must be over (epoch ms). */
  deadline: number;
  onRetry?: (err: EngineError, waitMs: number, attempt: number) => void;
  /** Before each request to the provider (attempt 0 is the call, later ones its retries). */
  onRequest?: (attempt: number) => void;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });

export async function askWithRetry(
  engine: AnswerEngine,
  prompt: string,
  p: RetryPolicy,
): Promise<EngineAnswer> {
  const maxWait = p.maxWaitMs ?? 120_000;
  for (let attempt = 0; ; attempt++) {
    const left = p.deadline - Date.now();
    if (left <= 0 || p.signal.aborted) {
      throw new EngineError(
        'provider_timeout',
        `${engine.id}: the run deadline passed before this call`,
        engine.id,
      );
    }
    try {
      p.onRequest?.(attempt);
      const answer = await engine.ask(prompt, { signal: p.signal, timeoutMs: Math.min(p.timeoutMs, left) });
      geoProviderCalls.inc({ provider: engine.id, outcome: 'ok' });
      return answer;
    } catch (raw) {
      const err = toEngineError(raw, engine.id);
      const final = !err.retryable || attempt >= p.maxRetries || p.signal.aborted;
      geoProviderCalls.inc({ provider: engine.id, outcome: final ? err.code : 'retried' });
      if (final) throw err;
      const backoff = p.baseMs * 2 ** attempt + Math.random() * p.baseMs;
      const wait = err.retryAfterSeconds !== undefined ? err.retryAfterSeconds * 1000 : backoff;
      if (wait > maxWait || Date.now() + wait >= p.deadline) throw err;
      p.onRetry?.(err, wait, attempt + 1);
      await sleep(wait, p.signal);
    }
  }
}
