import { defineCheck, graded, pass } from '../../check.ts';
import { kib, originOf, SLOW_4G, scoreWastedMs, seconds, shortName, transferMs } from './lib/network.ts';

// After Lighthouse's render-blocking-resources: nothing paints until blocking scripts and
// stylesheets in <head> have arrived. Estimated delay on slow 4G: one round trip for same-origin
// files (multiplexed on the page's connection), three more per other origin (DNS, TCP, TLS), plus
// the download of their bytes. Unreachable files count too: a browser waits for them to time out.

export default defineCheck({
  meta: {
    id: 'speed-render-blocking',
    title: 'Few render-blocking resources',
    failureTitle: 'Render-blocking resources delay the first paint',
    description:
      'Scripts and stylesheets in <head> block rendering until downloaded. Defer or async scripts, inline critical CSS and load the rest without blocking.',
    requiredArtifacts: ['Resources'],
  },
  run({ Resources }) {
    const blocking = Resources.entries.filter((e) => e.renderBlocking);
    if (blocking.length === 0) return pass('No render-blocking scripts or stylesheets');
    const origins = new Set(blocking.filter((e) => !e.sameOrigin).map((e) => originOf(e.url)));
    const bytes = blocking.reduce((s, e) => s + (e.bytes ?? 0), 0);
    const rtts = (blocking.some((e) => e.sameOrigin) ? 1 : 0) + 4 * origins.size;
    const delayMs = rtts * SLOW_4G.rttMs + transferMs(bytes);
    const scripts = blocking.filter((e) => e.type === 'script').length;
    const evidence = {
      resources: blocking.map((e) => e.url),
      thirdPartyOrigins: [...origins],
      bytes,
      estimatedDelayMs: Math.round(delayMs),
    };
    const what = `${blocking.length} render-blocking resource${blocking.length > 1 ? 's' : ''} (${scripts} script${scripts === 1 ? '' : 's'}, ${kib(bytes)}${origins.size ? `, ${origins.size} other origin${origins.size > 1 ? 's' : ''}` : ''})`;
    const score = scoreWastedMs(delayMs);
    if (score >= 0.9) return graded(score, `Only ${what}`, evidence);
    return graded(
      score,
      `${what} ${blocking.length > 1 ? 'delay' : 'delays'} the first paint by about ${seconds(delayMs)} on slow 4G, e.g. ${shortName(blocking[0]?.url ?? '')}`,
      evidence,
    );
  },
});
