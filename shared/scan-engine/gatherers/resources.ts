import pLimit from 'p-limit';
import { decodeText } from '../../net/decode-text.ts';
import { safeFetch } from '../../net/safe-fetch.ts';
import type { PageArtifact, ResourceEntry, ResourcesArtifact } from '../artifacts.ts';
import { errorText } from './fetch-text.ts';
import { partValue, type ResourceRef as Ref, refsOf } from './page-refs.ts';
import type { GatherContext, ResourceFetch } from './types.ts';

// Subresources the page references — stylesheets, scripts, fonts, images — fetched in parallel
// with short limits, so the speed checks can see sizes, compression and caching without a
// browser. Fonts are also found in the fetched stylesheets' @font-face rules. An unreachable
// third-party host costs at most one connect timeout, in parallel with everything else.

const MAX_RESOURCES = 40;
const CONCURRENCY = 8;
const RESOURCE_TIMEOUT_MS = 6_000;
const CONNECT_TIMEOUT_MS = 3_000;
const MAX_BYTES = 3 * 1024 * 1024;
export async function gatherResources(ctx: GatherContext, page: PageArtifact): Promise<ResourcesArtifact> {
  const refs = partValue((await refsOf(ctx, page)).resources);
  const origin = new URL(page.finalUrl).origin;
  const limit = pLimit(CONCURRENCY);
  const styles = new Map<string, string>(); // stylesheet URL -> CSS text, to find fonts

  /** What one fetch of a resource found: shared by every page of an audit that references it. */
  const fetchResource = async (ref: Ref): Promise<ResourceFetch> => {
    try {
      const res = await safeFetch(ref.url, {
        policy: ctx.policy,
        slots: ctx.slots,
        userAgent: ctx.userAgent,
        signal: ctx.signal,
        headers: { referer: page.finalUrl },
        timeoutMs: RESOURCE_TIMEOUT_MS,
        connectTimeoutMs: CONNECT_TIMEOUT_MS,
        maxBytes: MAX_BYTES,
        insecureTls: true,
      });
      const contentType = res.headers['content-type'] ?? null;
      return {
        status: res.status,
        bytes: res.bytes.transferred,
        contentType,
        contentEncoding: res.contentEncoding,
        cacheControl: res.headers['cache-control'] ?? null,
        css: ref.type === 'stylesheet' && res.status < 300 ? decodeText(res.body, contentType) : null,
      };
    } catch (err) {
      return { error: errorText(err) };
    }
  };
  const fetched = (ref: Ref): Promise<ResourceFetch> => {
    const cache = ctx.resourceCache;
    if (!cache) return fetchResource(ref);
    let p = cache.get(ref.url);
    if (!p) {
      p = fetchResource(ref);
      cache.set(ref.url, p);
    }
    return p;
  };

  const fetchOne = async (ref: Ref): Promise<ResourceEntry> => {
    const entry: ResourceEntry = {
      url: ref.url,
      type: ref.type,
      status: null,
      bytes: null,
      contentType: null,
      contentEncoding: null,
      cacheControl: null,
      renderBlocking: ref.renderBlocking,
      sameOrigin: new URL(ref.url).origin === origin,
    };
    const r = await fetched(ref);
    if ('error' in r) {
      entry.error = r.error;
      return entry;
    }
    entry.status = r.status;
    entry.bytes = r.bytes;
    entry.contentType = r.contentType;
    entry.contentEncoding = r.contentEncoding;
    entry.cacheControl = r.cacheControl;
    if (r.css !== null) styles.set(ref.url, r.css);
    return entry;
  };

  const first = refs.slice(0, MAX_RESOURCES);
  const entries = await Promise.all(first.map((r) => limit(() => fetchOne(r))));
  const seen = new Set(refs.map((r) => r.url));
  const fonts: Ref[] = [];
  for (const [url, css] of styles) {
    for (const font of fontUrls(css, url)) {
      if (seen.has(font)) continue;
      seen.add(font);
      fonts.push({ url: font, type: 'font', renderBlocking: false });
    }
  }
  const room = Math.max(0, MAX_RESOURCES - first.length);
  entries.push(...(await Promise.all(fonts.slice(0, room).map((r) => limit(() => fetchOne(r))))));
  return { entries, skipped: refs.length + fonts.length - entries.length };
}

/** The first url() of each @font-face rule: the one a browser tries first. */
function fontUrls(css: string, stylesheetUrl: string): string[] {
  const out: string[] = [];
  for (const rule of css.matchAll(/@font-face\s*\{([^}]*)\}/gi)) {
    const src = /\bsrc\s*:([^;]*)/i.exec(rule[1] ?? '')?.[1] ?? '';
    const first = /url\(\s*(['"]?)([^'")]+)\1\s*\)/i.exec(src)?.[2];
    if (!first || first.startsWith('data:')) continue;
    try {
      out.push(new URL(first, stylesheetUrl).href);
    } catch {
      // not a URL
    }
  }
  return out;
}
