import type { Middleware } from 'koa';
import { type AccessRule, AdmissionError, Admitter, type Caller } from '../../shared/accounts/admission.ts';
import type { RateState } from '../../shared/accounts/rate-limit.ts';
import type { Services } from '../../shared/services.ts';
import type { RouteContext } from '../route.ts';

// The REST door onto the one admission path (shared/accounts/admission.ts): authorise, count,
// and show the caller's bucket in X-RateLimit-* on every answer, refusals included.

export function setRateHeaders(ctx: Pick<RouteContext, 'set'>, s: RateState): void {
  ctx.set('X-RateLimit-Limit', String(s.limit));
  ctx.set('X-RateLimit-Remaining', String(s.remaining));
  ctx.set('X-RateLimit-Reset', String(s.reset));
}

export const callerOf = (ctx: RouteContext): Caller => ({
  authorization: ctx.get('authorization') || undefined,
  ip: ctx.ip,
});

/**
 * A route's admission step: the caller is admitted (headers set, principal kept) or it throws.
 * An informational route is admitted at once from what this process knows of the caller, with no
 * promise to wait for (`undefined`): the common call to /status and friends.
 */
export function admission(
  access: AccessRule,
  services: Services,
): (ctx: RouteContext) => Promise<void> | undefined {
  const admitter = new Admitter(services.db, services.config);
  const admitAsync = async (ctx: RouteContext) => {
    try {
      const admitted = await admitter.admit(callerOf(ctx), access);
      setRateHeaders(ctx, admitted.rate);
      if (admitted.principal) ctx.state.principal = admitted.principal;
    } catch (err) {
      if (err instanceof AdmissionError) setRateHeaders(ctx, err.rate);
      throw err;
    }
  };
  if (access.kind !== 'public') return admitAsync;
  return (ctx) => {
    const lately = admitter.informational(callerOf(ctx));
    if (!lately) return admitAsync(ctx);
    setRateHeaders(ctx, lately.rate);
    if (lately.principal) ctx.state.principal = lately.principal;
    return undefined;
  };
}

/** A route's guard middleware: the caller is admitted before anything of the route runs. */
export function guard(access: AccessRule, services: Services): Middleware {
  const admit = admission(access, services);
  return (ctx, next) => {
    // An informational call admitted from what this process last counted has nothing to wait for.
    const admitting = admit(ctx as RouteContext);
    return admitting ? admitting.then(next) : next();
  };
}

/**
 * For answers no route admitted (unknown paths, 405, a body refused before routing): the
 * caller's current bucket, peeked without counting, so every response carries the headers.
 * A step of the outer middleware (frame.ts), after the answer is made.
 */
export function ensureRateHeaders(ctx: RouteContext, admitter: Admitter): Promise<void> | undefined {
  if (ctx.response.get('X-RateLimit-Limit')) return undefined; // the common case: nothing to wait for
  return admitter.peek(callerOf(ctx)).then(
    (state) => setRateHeaders(ctx, state),
    () => {},
  );
}
