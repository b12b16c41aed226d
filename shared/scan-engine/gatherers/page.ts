import { decodeText } from '../../net/decode-text.ts';
import { type SafeFetchResult, safeFetch } from '../../net/safe-fetch.ts';
import type { PageArtifact } from '../artifacts.ts';
import { CORS_PROBE_ORIGIN } from '../security/cors-probe.ts';
import type { GatherContext } from './types.ts';

// The main document with our own user agent, no JavaScript. Certificate problems are recorded
// (tls.authorized = false) rather than fatal, so the security checks can say what is wrong.

const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const TEXTUAL = /^(text\/|application\/(xhtml\+xml|xml|json|ld\+json|javascript)|[^;]*\+(xml|json))/i;

export async function gatherPage(ctx: GatherContext): Promise<PageArtifact> {
  const res = await safeFetch(ctx.url, {
    policy: ctx.policy,
    slots: ctx.slots,
    userAgent: ctx.userAgent,
    signal: ctx.signal,
    // The Origin probe lets the CORS check see a server that reflects any origin with credentials.
    headers: { accept: HTML_ACCEPT, 'accept-language': 'en;q=0.9, *;q=0.5', origin: CORS_PROBE_ORIGIN },
    insecureTls: true,
  });
  const contentType = res.headers['content-type'] ?? null;
  const textual = contentType === null || TEXTUAL.test(contentType);
  return {
    requestedUrl: res.requestedUrl,
    finalUrl: res.finalUrl,
    redirectChain: res.redirectChain,
    status: res.status,
    headers: res.headers,
    setCookies: res.setCookies,
    tls: res.tls && {
      protocol: res.tls.protocol,
      cipher: res.tls.cipher,
      validTo: res.tls.validTo,
      authorized: res.tls.authorized,
    },
    contentType,
    html: textual ? decodeText(res.body, contentType) : '',
    truncated: res.truncated,
    timings: res.timings,
    bytes: res.bytes,
    contentEncoding: res.contentEncoding,
    httpRedirectsToHttps: await redirectsToHttps(ctx, res),
  };
}

/**
 * Whether plain http:// of the site ends on https://. Answered from the fetch itself when it
 * started or ended on http; otherwise a short best-effort probe of http://<host>/ (null when that
 * cannot be reached, or when the site runs on a non-default https port with no http twin).
 */
async function redirectsToHttps(ctx: GatherContext, res: SafeFetchResult): Promise<boolean | null> {
  const final = new URL(res.finalUrl);
  if (final.protocol === 'http:') return false;
  if (new URL(res.requestedUrl).protocol === 'http:') return true;
  if (final.port) return null;
  try {
    const probe = await safeFetch(`http://${final.host}/`, {
      policy: ctx.policy,
      slots: ctx.slots,
      userAgent: ctx.userAgent,
      signal: ctx.signal,
      timeoutMs: 3_000,
      maxBytes: 1024, // only where it ends matters
      insecureTls: true,
    });
    return new URL(probe.finalUrl).protocol === 'https:';
  } catch (err) {
    ctx.log?.(`http->https probe of ${final.host}: ${(err as Error).message}`);
    return null;
  }
}
