import { defineCheck, graded } from '../../check.ts';
import { curveScore, seconds } from './lib/network.ts';

// web.dev's TTFB thresholds: good at or under 0.8 s, poor above 1.8 s. As a Lighthouse-style
// log-normal curve, 0.8 s scores 0.9 and 1.8 s scores 0.5.
const CURVE = { p10: 800, median: 1800 };

export default defineCheck({
  meta: {
    id: 'speed-ttfb',
    title: 'Server responds quickly',
    failureTitle: 'Server is slow to respond',
    description:
      'Time to first byte is the wait before anything can render. Keep it under 0.8 s with caching, a CDN and fast back-end code.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const ms = Page.timings.ttfbMs;
    const score = curveScore(CURVE, ms);
    const evidence = { ttfbMs: ms };
    if (score >= 0.9)
      return graded(score, `Server responded in ${seconds(ms)} (time to first byte)`, evidence);
    return graded(score, `Server is slow to respond: time to first byte ${seconds(ms)}`, evidence);
  },
});
