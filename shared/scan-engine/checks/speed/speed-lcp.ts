import { lighthouseMetricCheck } from './lib/lighthouse-metric.ts';

// Lighthouse 12's mobile control points, from core/audits/metrics/largest-contentful-paint.js:
// HTTP Archive 13th and 25th percentiles; 2.5 s is web.dev's "good" LCP.
export default lighthouseMetricCheck({
  id: 'speed-lcp',
  audit: 'largest-contentful-paint',
  name: 'Largest Contentful Paint',
  curve: { p10: 2500, median: 4000 },
  unit: 'ms',
  description:
    'Time until the largest text block or image is painted. Optimise the hero image and server response.',
});
