import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import { AppError, tierRequired, unauthorized, variantMismatch } from '../errors.ts';
import { rateLimited } from '../metrics.ts';
import { type AuthResult, authenticate, authenticateAndTake, type Principal } from './auth.ts';
import { peekToken, type RateState, takeToken } from './rate-limit.ts';

// One admission path for every door (REST guard, MCP tools/call, scan polling, pages): who is
// calling, may they call this, and does it fit in their rolling hour. Failed authentication is
// counted per client address, which also slows key guessing. Every outcome, refusals included,
// carries the rate state the X-RateLimit-* headers show.

export type AccessRule =
  /** Informational, not counted: the rate state shown is the caller's current bucket. */
  | { kind: 'public' }
  /** Keyless, counted per client address in its own bucket. */
  | { kind: 'ip'; bucket: string; ipLimit: number | ((config: Config) => number) }
  /**
   * A key is optional: with one (it must be valid) the call is counted per key, else per client
   * address, both in this rule's own bucket (polling must not eat the key's hourly calls).
   */
  | { kind: 'optional-key'; bucket: string; limit: (config: Config) => number }
  /** A valid key of one of `variants` (and `tiers`, when given) is required; counted per key. */
  | { kind: 'key'; variants: Variant[]; tiers?: ApiTier[] };

export interface Caller {
  /** The Authorization header as sent. */
  authorization: string | undefined;
  ip: string;
}

export interface Admission {
  principal?: Principal;
  rate: RateState;
}

/** A refusal, with the rate state its headers must still show. */
export class AdmissionError extends AppError {
  constructor(
    base: AppError,
    readonly rate: RateState,
  ) {
    super(base.status, base.code, base.title, base.detail, base.extra);
  }
}

const PEEK_CACHE_MS = 1000;
const PEEK_CACHE_MAX = 10_000;
const publicPeeks = new Map<string, { until: number; admission: Admission }>();

const VARIANT_NAMES = { A: 'A (site audit)', B: 'B (agent readability)' } as const;

const UNAUTHORIZED_DETAIL: Record<Exclude<AuthResult, { ok: true }>['reason'], string | undefined> = {
  missing: undefined,
  malformed: 'The API key is not valid.',
  unknown: 'The API key is not valid.',
  revoked: 'This API key has been revoked.',
};

export function rateLimitError(state: RateState, what: string): AppError {
  const retryAfter = Math.max(1, state.reset - Math.floor(Date.now() / 1000));
  return new AppError(
    429,
    'rate_limited',
    'Too many requests',
    `Rate limit of ${state.limit} calls per hour for ${what} exceeded; retry after ${retryAfter}s.`,
    { headers: { 'Retry-After': String(retryAfter) }, limit: state.limit, reset: state.reset, retryAfter },
  );
}

export class Admitter {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: Config,
  ) {}

  private async take(bucket: string, max: number, kind: 'ip' | 'key', what: string): Promise<RateState> {
    const state = await takeToken(this.db, bucket, max);
    if (!state.allowed) {
      rateLimited.inc({ kind });
      throw new AdmissionError(rateLimitError(state, what), state);
    }
    return state;
  }

  /**
   * Counts a failed authentication against the caller's address (429 once that is spent): for
   * doors with credentials of their own, such as collect's ingest tokens.
   */
  countFailedAuth(caller: Caller): Promise<RateState> {
    return this.take(
      `ip:default:${caller.ip}`,
      this.config.RATE_LIMIT_IP_DEFAULT,
      'ip',
      'this client address',
    );
  }

  /** Counts a failed authentication against the caller's address, then refuses with 401. */
  private async refuseAuth(caller: Caller, auth: Exclude<AuthResult, { ok: true }>): Promise<never> {
    const state = await this.countFailedAuth(caller);
    throw new AdmissionError(unauthorized(UNAUTHORIZED_DETAIL[auth.reason]), state);
  }

  /** A valid key, counted against its hourly budget; tier and variant are checked by the caller. */
  async keyed(caller: Caller): Promise<Admission & { principal: Principal }> {
    const auth = await authenticateAndTake(this.db, caller.authorization, {
      leases: this.config.RATE_LIMIT_LEASES,
    });
    if (!auth.ok) return this.refuseAuth(caller, auth);
    const { principal, rate } = auth;
    if (!rate.allowed) {
      rateLimited.inc({ kind: 'key' });
      throw new AdmissionError(rateLimitError(rate, 'this API key'), rate);
    }
    return { principal, rate };
  }

  async admit(caller: Caller, rule: AccessRule): Promise<Admission> {
    switch (rule.kind) {
      case 'public':
        return this.peekCached(caller);
      case 'ip': {
        const max = typeof rule.ipLimit === 'function' ? rule.ipLimit(this.config) : rule.ipLimit;
        const rate = await this.take(`ip:${rule.bucket}:${caller.ip}`, max, 'ip', 'this client address');
        return { rate };
      }
      case 'optional-key': {
        const max = rule.limit(this.config);
        if (!caller.authorization) {
          const rate = await this.take(`${rule.bucket}:ip:${caller.ip}`, max, 'ip', 'this client address');
          return { rate };
        }
        const auth = await authenticate(this.db, caller.authorization);
        if (!auth.ok) return this.refuseAuth(caller, auth);
        const rate = await this.take(
          `${rule.bucket}:key:${auth.principal.keyId}`,
          max,
          'key',
          'this API key',
        );
        return { rate, principal: auth.principal };
      }
      case 'key': {
        const admitted = await this.keyed(caller);
        const p = admitted.principal;
        if (!rule.variants.includes(p.variant)) {
          const want = rule.variants.map((v) => VARIANT_NAMES[v]).join(' or ');
          throw new AdmissionError(
            variantMismatch(
              `This endpoint belongs to variant ${want}; your key is a variant ${VARIANT_NAMES[p.variant]} key.`,
            ),
            admitted.rate,
          );
        }
        if (rule.tiers && !rule.tiers.includes(p.tier)) {
          throw new AdmissionError(
            tierRequired(
              `This endpoint needs one of the tiers: ${rule.tiers.join(', ')}; your key's tier is ${p.tier}.`,
            ),
            admitted.rate,
          );
        }
        return admitted;
      }
    }
  }

  /** The caller's current bucket without counting: for answers no route admitted (404, 405, 413). */
  async peek(caller: Caller): Promise<RateState> {
    return (await this.peekCached(caller)).rate;
  }

  /**
   * Informational answers (status, products, /openapi.json, 404s) are not counted, so their
   * headers may be a moment old: the caller's bucket is read at most once a second per process,
   * which keeps these endpoints free of a database round trip per request.
   */
  private async peekCached(caller: Caller): Promise<Admission> {
    const hit = this.peekedLately(caller);
    if (hit) return hit;
    const key = `${caller.ip}\n${caller.authorization ?? ''}`;
    const now = Date.now();
    const admission = await this.peekNow(caller);
    if (publicPeeks.size >= PEEK_CACHE_MAX) publicPeeks.clear(); // bounded: a flood of new callers resets it
    publicPeeks.set(key, { until: now + PEEK_CACHE_MS, admission });
    return admission;
  }

  /**
   * An informational call's admission when the caller's bucket was read within the last second:
   * answered without a promise, as most calls to these endpoints are (routes take it first).
   */
  peekedLately(caller: Caller): Admission | undefined {
    const hit = publicPeeks.get(`${caller.ip}\n${caller.authorization ?? ''}`);
    return hit && hit.until > Date.now() ? hit.admission : undefined;
  }

  private async peekNow(caller: Caller): Promise<Admission> {
    const auth = caller.authorization ? await authenticate(this.db, caller.authorization) : undefined;
    const rate = auth?.ok
      ? await peekToken(this.db, `key:${auth.principal.keyId}`, auth.principal.limit)
      : await peekToken(this.db, `ip:default:${caller.ip}`, this.config.RATE_LIMIT_IP_DEFAULT);
    return { rate, principal: auth?.ok ? auth.principal : undefined };
  }
}
