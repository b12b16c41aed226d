import type { RobotsTxtArtifact } from '../artifacts.ts';
import { fetchTextFile } from './fetch-text.ts';
import type { GatherContext } from './types.ts';

/** /robots.txt of the site's origin. RFC 9309 asks crawlers to read at least 500 KiB. */
export function gatherRobotsTxt(ctx: GatherContext, base: URL): Promise<RobotsTxtArtifact> {
  return fetchTextFile(ctx, new URL('/robots.txt', base).href, { maxBytes: 512 * 1024 });
}
