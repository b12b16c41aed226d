import { safeFetch } from '../../net/safe-fetch.ts';
import type { UrlPolicy } from '../../net/url-policy.ts';

/**
 * Where a grounding redirect points: one request through the safe fetcher (address policy on,
 * redirects not followed), reading its Location. Null when it does not redirect.
 */
export async function resolveGroundingRedirect(
  uri: string,
  policy: UrlPolicy,
  signal: AbortSignal,
): Promise<string | null> {
  const res = await safeFetch(uri, {
    policy,
    method: 'GET',
    followRedirects: false,
    timeoutMs: 10_000,
    maxBytes: 64 * 1024,
    signal,
  });
  const location = res.headers.location;
  if (res.status < 300 || res.status >= 400 || !location) return null;
  try {
    const target = new URL(location, uri);
    return target.protocol === 'http:' || target.protocol === 'https:' ? target.toString() : null;
  } catch {
    return null;
  }
}
