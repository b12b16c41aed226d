import { robotsAdvertisedKey, withSource } from '../../geo-scoring/indexnow.ts';
import type { IndexNowArtifact, PageArtifact, RobotsTxtArtifact } from '../artifacts.ts';
import { fetchTextFile, isOk } from './fetch-text.ts';
import { partValue, refsOf } from './page-refs.ts';
import type { GatherContext } from './types.ts';

/**
 * The IndexNow key file, when a key is known: the owner's declared key (ctx.indexnow) first, else
 * one advertised in robots.txt or the page. Fetched at the declared or advertised location, else
 * /{key}.txt on the site's origin (the protocol's default), through the same URL policy.
 */
export async function gatherIndexNow(
  ctx: GatherContext,
  base: URL,
  page: PageArtifact | null,
  robots: RobotsTxtArtifact | null,
): Promise<IndexNowArtifact> {
  ctx.signal.throwIfAborted();
  const declared = ctx.indexnow;
  const advertised = declared
    ? null
    : (robotsAdvertisedKey(robots && isOk(robots.status) ? robots.body : null) ??
      (page ? withSource(partValue((await refsOf(ctx, page)).indexnow), 'page') : null));
  const key = declared?.key ?? advertised?.key ?? null;
  if (!key) return { key: null, source: null, keyFileUrl: null, status: null, matches: false };
  const location = declared ? (declared.keyLocation ?? null) : (advertised?.location ?? null);
  let keyFileUrl: string;
  try {
    keyFileUrl = new URL(location ?? `/${key}.txt`, base).href;
  } catch {
    keyFileUrl = new URL(`/${key}.txt`, base).href;
  }
  // The protocol accepts a keyLocation only on the submitting host.
  if (new URL(keyFileUrl).host !== base.host)
    return {
      key,
      source: declared ? 'declared' : advertised!.source,
      keyFileUrl,
      status: null,
      matches: false,
      error: `the key location must be on ${base.host} (IndexNow ignores keys hosted elsewhere)`,
    };
  const file = await fetchTextFile(ctx, keyFileUrl, { maxBytes: 4096 });
  return {
    key,
    source: declared ? 'declared' : advertised!.source,
    keyFileUrl,
    status: file.status,
    matches: isOk(file.status) && file.body.trim() === key,
    ...(file.error ? { error: file.error } : {}),
  };
}
