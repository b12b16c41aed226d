import { defineCheck, graded, notApplicable, pass } from '../../check.ts';
import { plural } from '../content/lib/page.ts';
import { cacheHitProbability, cacheLifetime } from './lib/cache.ts';
import { fetched, kib, scoreWastedMs, seconds, shortName, transferMs } from './lib/network.ts';

// After Lighthouse's cache insight: a static asset cached for less than 30 days is likely to be
// downloaded again on a repeat visit; the expected re-downloaded bytes are the waste.
const LONG_ENOUGH_SECONDS = 30 * 86400;
const STATIC = new Set(['script', 'stylesheet', 'image', 'font']);

export default defineCheck({
  meta: {
    id: 'speed-caching',
    title: 'Static assets have long cache lifetimes',
    failureTitle: 'Static assets are not cached long enough',
    description:
      'Returning visitors reuse cached images, fonts, CSS and JavaScript instead of downloading them again. Serve versioned static assets with Cache-Control: max-age of 30 days or more.',
    requiredArtifacts: ['Resources'],
  },
  run({ Resources }) {
    const assets = fetched(Resources.entries).filter((e) => STATIC.has(e.type));
    if (assets.length === 0) return notApplicable('Page loads no static assets');
    const short = assets
      .map((e) => ({ url: e.url, bytes: e.bytes, ttl: cacheLifetime(e.cacheControl) }))
      .filter((e) => e.ttl < LONG_ENOUGH_SECONDS)
      .map((e) => ({ ...e, wasted: (1 - cacheHitProbability(e.ttl)) * e.bytes }));
    const wastedBytes = short.reduce((s, e) => s + e.wasted, 0);
    const evidence = {
      assets: assets.length,
      shortLived: short.map(({ url, ttl, bytes }) => ({ url, ttl, bytes })),
    };
    if (short.length === 0)
      return pass(
        `Static assets are cached for 30 days or more (${plural(assets.length, 'asset')})`,
        evidence,
      );
    const wastedMs = transferMs(wastedBytes);
    const score = scoreWastedMs(wastedMs);
    if (score >= 0.9) {
      return graded(
        score,
        `Static assets are cached well enough; ${plural(short.length, 'short-lived asset')} cost about ${kib(wastedBytes)} on repeat visits`,
        evidence,
      );
    }
    const uncached = short.filter((e) => e.ttl === 0).length;
    return graded(
      score,
      `${short.length} of ${assets.length} static assets have a short cache lifetime${uncached ? ` (${uncached} not cacheable at all)` : ''}, e.g. ${shortName(short[0]?.url ?? '')}; repeat visits re-download about ${kib(wastedBytes)} (${seconds(wastedMs)})`,
      evidence,
    );
  },
});
