import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { ApiTier, Variant } from '../db/tables/accounts.ts';
import { AppError, tierRequired, unauthorized, variantMismatch } from '../errors.ts';
import { rateLimited } from '../metrics.ts';
import { type AuthResult, authenticate, authenticateAndTake, type Principal, TIER_LIMITS } from './auth.ts';
import { lastCounted, peekToken, type RateState, takeToken } from './rate-limit.ts';

// One admission path for every door (REST guard, MCP tools/call, scan polling, pages): who is
// calling, may they call this, and does it fit in their rolling hour. Failed authentication is
// counted per client address, which also slows key guessing. Every outcome, refusals included,
// carries the rate state the X-RateLimit-* headers show. Informational answers count nothing
// and, for a keyless caller or a key this process knows, read nothing (informational()).

export type AccessRule =
  /** Informational, not counted: the rate state shown is the caller's bucket as this process knows it. */
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

/** A signed-in person (the console's session), as admission sees them. */
export interface Person {
  accountId: string;
  variant: Variant;
  tier: ApiTier;
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

/**
 * Keys by Authorization header, as this process last authenticated them (undefined: not a live
 * key), for informational answers: a key's calls refresh it, an idle entry is looked up again
 * after a minute, so a revocation shows there within a minute. Bounded: the oldest turned out.
 */
const KNOWN_CALLER_MS = 60_000;
const KNOWN_CALLERS_MAX = 10_000;
const knownCallers = new Map<string, { principal: Principal | undefined; until: number }>();

function rememberCaller(authorization: string, principal: Principal | undefined): void {
  knownCallers.delete(authorization);
  if (knownCallers.size >= KNOWN_CALLERS_MAX) knownCallers.delete(knownCallers.keys().next().value as string);
  knownCallers.set(authorization, { principal, until: Date.now() + KNOWN_CALLER_MS });
}

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

  private async take(
    bucket: string,
    max: number,
    kind: 'ip' | 'key' | 'account',
    what: string,
  ): Promise<RateState> {
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
    const auth = await authenticateAndTake(this.db, caller.authorization);
    if (!auth.ok) return this.refuseAuth(caller, auth);
    const { principal, rate } = auth;
    rememberCaller(caller.authorization!, principal);
    if (!rate.allowed) {
      rateLimited.inc({ kind: 'key' });
      throw new AdmissionError(rateLimitError(rate, 'this API key'), rate);
    }
    return { principal, rate };
  }

  async admit(caller: Caller, rule: AccessRule): Promise<Admission> {
    switch (rule.kind) {
      case 'public':
        return this.informational(caller) ?? this.peekNow(caller);
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
        rememberCaller(caller.authorization, auth.principal);
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

  /**
   * A signed-in person acting in the console, admitted by a keyed rule as their account's key
   * would be: the rule's variant and tier checks, then one call counted in the account's own
   * bucket at its tier's hourly limit (a person has a session, not a key).
   */
  async person(person: Person, rule: Extract<AccessRule, { kind: 'key' }>): Promise<RateState> {
    const bucket = `account:${person.accountId}`;
    const limit = TIER_LIMITS[person.tier];
    if (!rule.variants.includes(person.variant))
      throw new AdmissionError(
        variantMismatch(
          `This belongs to variant ${rule.variants.map((v) => VARIANT_NAMES[v]).join(' or ')}.`,
        ),
        await peekToken(this.db, bucket, limit),
      );
    if (rule.tiers && !rule.tiers.includes(person.tier))
      throw new AdmissionError(
        tierRequired(
          `This needs one of the tiers: ${rule.tiers.join(', ')}; your account's tier is ${person.tier}.`,
        ),
        await peekToken(this.db, bucket, limit),
      );
    return this.take(bucket, limit, 'account', 'your account');
  }

  /** The caller's bucket without counting: for answers no route admitted (404, 405, 413). */
  async peek(caller: Caller): Promise<RateState> {
    return (this.informational(caller) ?? (await this.peekNow(caller))).rate;
  }

  /**
   * An informational answer's admission with no database work: the caller's bucket as this
   * process last counted it (rate-limit.ts, lastCounted). Undefined for a key this process has not
   * authenticated within a minute: peekNow looks it up once.
   */
  informational(caller: Caller): Admission | undefined {
    if (!caller.authorization) return { rate: this.ipBucket(caller) };
    const known = knownCallers.get(caller.authorization);
    if (!known || known.until <= Date.now()) return undefined;
    const { principal } = known;
    if (!principal) return { rate: this.ipBucket(caller) };
    return { principal, rate: lastCounted(`key:${principal.keyId}`, principal.limit) };
  }

  /** The caller's address bucket as this process last counted it. */
  private ipBucket(caller: Caller): RateState {
    return lastCounted(`ip:default:${caller.ip}`, this.config.RATE_LIMIT_IP_DEFAULT);
  }

  /** Authenticates the caller's key and reads its bucket: two statements, remembered for informational(). */
  private async peekNow(caller: Caller): Promise<Admission> {
    const auth = caller.authorization ? await authenticate(this.db, caller.authorization) : undefined;
    const principal = auth?.ok ? auth.principal : undefined;
    if (caller.authorization) rememberCaller(caller.authorization, principal);
    const rate = principal
      ? await peekToken(this.db, `key:${principal.keyId}`, principal.limit)
      : await peekToken(this.db, `ip:default:${caller.ip}`, this.config.RATE_LIMIT_IP_DEFAULT);
    return { rate, principal };
  }
}
