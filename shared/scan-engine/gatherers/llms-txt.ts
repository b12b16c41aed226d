import { safeFetch } from '../../net/safe-fetch.ts';
import type { LlmsTxtArtifact } from '../artifacts.ts';
import { parseLlmsTxt } from '../parsers/llms-txt.ts';
import { fetchTextFile, isOk } from './fetch-text.ts';
import type { GatherContext } from './types.ts';

/** /llms.txt (parsed) and whether /llms-full.txt exists. */
export async function gatherLlmsTxt(ctx: GatherContext, base: URL): Promise<LlmsTxtArtifact> {
  const fullUrl = new URL('/llms-full.txt', base).href;
  const [file, fullExists] = await Promise.all([
    fetchTextFile(ctx, new URL('/llms.txt', base).href, { maxBytes: 1024 * 1024 }),
    exists(ctx, fullUrl),
  ]);
  const present = isOk(file.status) && file.body.trim() !== '';
  return { ...file, parsed: present ? parseLlmsTxt(file.body) : null, fullUrl: fullExists ? fullUrl : null };
}

/** A 2xx that is not an HTML page (the usual soft 404). Reads only the first bytes. */
async function exists(ctx: GatherContext, url: string): Promise<boolean> {
  try {
    const res = await safeFetch(url, {
      policy: ctx.policy,
      slots: ctx.slots,
      userAgent: ctx.userAgent,
      signal: ctx.signal,
      timeoutMs: 8_000,
      maxBytes: 1024,
      insecureTls: true,
    });
    return (
      isOk(res.status) &&
      !/html/i.test(res.headers['content-type'] ?? '') &&
      !/^\s*</.test(res.body.toString())
    );
  } catch {
    return false;
  }
}
