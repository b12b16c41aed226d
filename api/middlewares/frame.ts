import type { Context, Middleware } from 'koa';
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
  // The answer's end: errors as problem+json, rate headers where no route set them, metric and log.
  const settle = async (ctx: Context, pending: Promise<unknown> | undefined, startedAt: number) => {
    try {
      try {
        if (pending) await pending;
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
  // A route that answered at once (see app.ts) is finished without a promise when its answer
  // has its rate headers: every promise and await costs each such call a turn of the microtask queue.
  return (ctx, next) => {
    const startedAt = startRequest(ctx);
    let pending: Promise<unknown> | undefined;
    try {
      pending = inner(ctx, next);
    } catch (err) {
      pending = Promise.reject(err);
    }
    if (pending || ctx.body === undefined || !ctx.response.get('X-RateLimit-Limit'))
      return settle(ctx, pending, startedAt);
    finishRequest(ctx, services.log, startedAt);
    return undefined;
  };
}
