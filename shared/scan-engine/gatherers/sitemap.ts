import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { decodeText } from '../../net/decode-text.ts';
import { safeFetch } from '../../net/safe-fetch.ts';
import type { RobotsTxtArtifact, SitemapArtifact } from '../artifacts.ts';
import { sitemaps as robotsSitemaps } from '../parsers/robots-txt.ts';
import { type SitemapDigest, sitemapDigest } from '../parsers/sitemap.ts';
import { errorText, isOk } from './fetch-text.ts';
import type { GatherContext } from './types.ts';

// Sitemaps declared in robots.txt, then /sitemap.xml; a sitemap index is followed one level
// down. Everything is capped: a scan reads a sample of a big site's sitemaps, not all of them.

const MAX_TOP_LEVEL = 5; // declared sitemaps read (plus /sitemap.xml)
const MAX_CHILDREN = 5; // child sitemaps read from indexes, in total
const MAX_KEPT = 500; // urls and lastmods kept in the artifact
const MAX_BYTES = 10 * 1024 * 1024; // the protocol's own limit is 50 MB uncompressed
const gunzip = promisify(zlib.gunzip);

type Loaded = SitemapDigest;

export async function gatherSitemap(
  ctx: GatherContext,
  base: URL,
  robots: RobotsTxtArtifact | null,
): Promise<SitemapArtifact> {
  const declared =
    robots && isOk(robots.status) ? robotsSitemaps(robots.body, robots.url).slice(0, MAX_TOP_LEVEL) : [];
  const fallback = new URL('/sitemap.xml', base).href;
  const candidates = [...new Set([...declared, fallback])];
  const errors: string[] = [];

  const load = async (url: string, reportMissing: boolean): Promise<Loaded | null> => {
    try {
      const res = await safeFetch(url, {
        policy: ctx.policy,
        slots: ctx.slots,
        userAgent: ctx.userAgent,
        signal: ctx.signal,
        timeoutMs: 8_000,
        maxBytes: MAX_BYTES,
        insecureTls: true,
      });
      if (!isOk(res.status)) {
        if (reportMissing) errors.push(`${url}: HTTP ${res.status}`);
        return null;
      }
      // foo.xml.gz is usually served as application/gzip, not with Content-Encoding.
      const body =
        res.body[0] === 0x1f && res.body[1] === 0x8b
          ? await gunzip(res.body, { maxOutputLength: MAX_BYTES, finishFlush: zlib.constants.Z_SYNC_FLUSH })
          : res.body;
      const xml = decodeText(body, res.headers['content-type'] ?? 'application/xml');
      // Parsed where the context says (a worker's scoring thread: up to 10 MB of XML), else here.
      const digest = ctx.cpuThread
        ? await ctx.cpuThread.sitemapDigest(xml, MAX_KEPT)
        : sitemapDigest(xml, MAX_KEPT);
      if (res.truncated) errors.push(`${url}: larger than ${MAX_BYTES} bytes, read in part`);
      if (digest.kind === 'invalid' || digest.errors.length)
        errors.push(...digest.errors.map((e) => `${url}: ${e}`));
      return digest;
    } catch (err) {
      errors.push(`${url}: ${errorText(err)}`);
      return null;
    }
  };

  // /sitemap.xml missing is only an error when nothing else was declared.
  const top = await Promise.all(candidates.map((u) => load(u, u !== fallback || declared.length === 0)));
  const sources = candidates.filter((_, i) => top[i] && top[i].kind !== 'invalid');
  const childUrls = [...new Set(top.flatMap((t) => (t?.kind === 'sitemapindex' ? t.children : [])))];
  const children = await Promise.all(childUrls.slice(0, MAX_CHILDREN).map((u) => load(u, true)));
  if (childUrls.length > MAX_CHILDREN)
    errors.push(`${childUrls.length - MAX_CHILDREN} more child sitemaps not read`);

  const urls = new Set<string>();
  const lastmods: string[] = [];
  let urlCount = 0;
  for (const s of [...top, ...children]) {
    if (s?.kind !== 'urlset') continue; // indexes inside indexes are not followed
    urlCount += s.urlCount;
    for (const loc of s.locs) if (urls.size < MAX_KEPT) urls.add(loc);
    for (const m of s.lastmods) if (lastmods.length < MAX_KEPT) lastmods.push(m);
  }
  return { sources, found: sources.length > 0, urls: [...urls], urlCount, lastmods, errors };
}
