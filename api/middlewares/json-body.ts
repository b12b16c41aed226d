import type { Middleware } from 'koa';
import { AppError } from '../../shared/errors.ts';

// A JSON endpoint sent a body of another type (a form, text, no Content-Type at all) answers 415
// before anything is parsed; a request without a body (or an empty one) is left to validation.
// MCP answers in its own protocol: a JSON-RPC error, as its SDK would.
export function jsonBodyOnly(style: 'problem' | 'jsonrpc' = 'problem'): Middleware {
  return async (ctx, next) => {
    if (ctx.get('content-length') !== '0' && ctx.is('application/json', '+json') === false) {
      const sent = ctx.get('content-type');
      const detail = `This endpoint takes a JSON body: send it with Content-Type: application/json${sent ? `, not ${sent.split(';')[0]}` : ''}.`;
      if (style === 'jsonrpc') {
        ctx.status = 415;
        ctx.body = {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32000, message: `Unsupported Media Type: ${detail}` },
        };
        return;
      }
      throw new AppError(415, 'unsupported_media_type', 'Unsupported media type', detail);
    }
    await next();
  };
}
