import type { Middleware } from 'koa';
import { Admitter } from '../../shared/accounts/admission.ts';
import type { Services } from '../../shared/services.ts';
import type { RouteContext } from '../route.ts';
import { answerProblem, throwIfUnanswered } from './errors.ts';
import { ensureRateHeaders } from './guard.ts';
import { finishRequest, startRequest } from './observe.ts';

/**
 * The outer middleware every request passes, around `inner` (the routes): its id, errors answered as problem+json, rate
 * headers on answers no route admitted, then the duration metric and the access-log line. One
 * middleware running these steps in order, not one middleware each: every layer costs every
 * request its own async frame, and the three layers took 13% of the CPU of a /api/v1/status call.
 */
export function frame(services: Services, inner: Middleware): Middleware {
  const admitter = new Admitter(services.db, services.config);
  return async (ctx, next) => {
    const startedAt = startRequest(ctx);
    try {
      try {
        await inner(ctx, next);
        throwIfUnanswered(ctx);
      } catch (err) {
        answerProblem(ctx, err, services.log);
      }
      // Answers a route admitted carry their headers already (no promise to wait for).
      if (!ctx.response.get('X-RateLimit-Limit')) await ensureRateHeaders(ctx as RouteContext, admitter);
    } finally {
      finishRequest(ctx, services.log, startedAt);
    }
  };
}
