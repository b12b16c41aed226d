import type { Middleware } from 'koa';
import { authenticate } from '../../shared/accounts/auth.ts';
import { peekToken, type RateState, takeToken } from '../../shared/accounts/rate-limit.ts';
import { AppError, tierRequired, unauthorized, variantMismatch } from '../../shared/errors.ts';
import { rateLimited } from '../../shared/metrics.ts';
import type { Services } from '../../shared/services.ts';
import type { Access, RouteContext } from '../route.ts';

// authorise -> rate-limit, per route. Every response carries the X-RateLimit-* headers, 401 and
// 429 included: failed authentication is counted per client IP, which also slows key guessing.

const setHeaders = (ctx: RouteContext, s: RateState) => {
  ctx.set('X-RateLimit-Limit', String(s.limit));
  ctx.set('X-RateLimit-Remaining', String(s.remaining));
  ctx.set('X-RateLimit-Reset', String(s.reset));
};

function tooMany(s: RateState, what: string): AppError {
  const retryAfter = Math.max(1, s.reset - Math.floor(Date.now() / 1000));
  return new AppError(
    429,
    'rate_limited',
    'Too many requests',
    `Rate limit of ${s.limit} calls per hour for ${what} exceeded; retry after ${retryAfter}s.`,
    {
      headers: { 'Retry-After': String(retryAfter) },
    },
  );
}

async function limit(
  ctx: RouteContext,
  services: Services,
  bucket: string,
  max: number,
  kind: string,
  what: string,
) {
  const state = await takeToken(services.db, bucket, max);
  setHeaders(ctx, state);
  if (!state.allowed) {
    rateLimited.inc({ kind });
    throw tooMany(state, what);
  }
}

const variantName = { A: 'A (site audit)', B: 'B (agent readability)' } as const;

export function guard(access: Access, services: Services): Middleware {
  const ipDefault = services.config.RATE_LIMIT_IP_DEFAULT;
  return async (rawCtx, next) => {
    const ctx = rawCtx as RouteContext;
    const ip = ctx.ip;
    const header = ctx.get('authorization') || undefined;

    if (access.kind === 'public') {
      // Informational endpoints are not counted; the headers show the caller's current bucket.
      const auth = header ? await authenticate(services.db, header) : undefined;
      const state = auth?.ok
        ? await peekToken(services.db, `key:${auth.principal.keyId}`, auth.principal.limit)
        : await peekToken(services.db, `ip:default:${ip}`, ipDefault);
      setHeaders(ctx, state);
      return next();
    }

    if (access.kind === 'ip') {
      const max = typeof access.ipLimit === 'function' ? access.ipLimit(services) : access.ipLimit;
      await limit(ctx, services, `ip:${access.bucket}:${ip}`, max, 'ip', 'this client address');
      return next();
    }

    const auth = await authenticate(services.db, header);
    if (!auth.ok) {
      await limit(ctx, services, `ip:default:${ip}`, ipDefault, 'ip', 'this client address');
      const detail =
        auth.reason === 'missing'
          ? undefined
          : auth.reason === 'revoked'
            ? 'This API key has been revoked.'
            : 'The API key is not valid.';
      throw unauthorized(detail);
    }
    const p = auth.principal;
    ctx.state.principal = p;
    await limit(ctx, services, `key:${p.keyId}`, p.limit, 'key', 'this API key');
    if (!access.variants.includes(p.variant)) {
      const want = access.variants.map((v) => variantName[v]).join(' or ');
      throw variantMismatch(
        `This endpoint belongs to variant ${want}; your key is a variant ${variantName[p.variant]} key.`,
      );
    }
    if (access.tiers && !access.tiers.includes(p.tier)) {
      throw tierRequired(
        `This endpoint needs one of the tiers: ${access.tiers.join(', ')}; your key's tier is ${p.tier}.`,
      );
    }
    return next();
  };
}
