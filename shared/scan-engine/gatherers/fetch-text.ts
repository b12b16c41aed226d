import { decodeText } from '../../net/decode-text.ts';
import { safeFetch } from '../../net/safe-fetch.ts';
import type { TextFileArtifact } from '../artifacts.ts';
import type { GatherContext } from './types.ts';

export interface TextFetchOptions {
  maxBytes?: number; // default 512 KiB
  timeoutMs?: number; // default 8 s
}

/**
 * Fetches a small text file (robots.txt, llms.txt, well-known files). Never throws for the
 * site's failures: an HTTP error keeps its status with an empty body, an unreachable file has
 * status null and `error`.
 */
export async function fetchTextFile(
  ctx: GatherContext,
  url: string,
  opts: TextFetchOptions = {},
): Promise<TextFileArtifact> {
  try {
    const res = await safeFetch(url, {
      policy: ctx.policy,
      slots: ctx.slots,
      userAgent: ctx.userAgent,
      signal: ctx.signal,
      timeoutMs: opts.timeoutMs ?? 8_000,
      maxBytes: opts.maxBytes ?? 512 * 1024,
      insecureTls: true,
    });
    const contentType = res.headers['content-type'] ?? null;
    const ok = res.status >= 200 && res.status < 300;
    return { url, status: res.status, contentType, body: ok ? decodeText(res.body, contentType) : '' };
  } catch (err) {
    ctx.log?.(`${url}: ${errorText(err)}`);
    return { url, status: null, contentType: null, body: '', error: errorText(err) };
  }
}

export const isOk = (status: number | null) => status !== null && status >= 200 && status < 300;

/** "code: message" for our typed errors, the message otherwise. */
export function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
}
