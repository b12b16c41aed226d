import type { Middleware } from 'koa';
import { Admitter } from '../../shared/accounts/admission.ts';
import type { Services } from '../../shared/services.ts';
import type { RouteContext } from '../route.ts';
import { answerProblem, throwIfUnanswered } from './errors.ts';
import { ensureRateHeaders } from './guard.ts';
import { finishRequest, startRequest } from './observe.ts';

/**
 * The outer middleware every request passes: its id, then (once everything inside has answered)
 * errors answered as problem+json, rate headers on answers no route admitted, the duration metric
 * and the access-log line.
 */
export function frame(services: Services): Middleware {
  const admitter = new Admitter(services.db, services.config);
  return async (ctx, next) => {
    const startedAt = startRequest(ctx);
    try {
      try {
        await next();
        throwIfUnanswered(ctx);
      } catch (err) {
        answerProblem(ctx, err, services.log);
      }
      // Answers a route admitted carry their headers already; others get the caller's bucket.
      const peeking = ensureRateHeaders(ctx as RouteContext, admitter);
      if (peeking) await peeking;
    } finally {
      finishRequest(ctx, services.log, startedAt);
    }
  };
}
