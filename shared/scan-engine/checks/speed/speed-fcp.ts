import { lighthouseMetricCheck } from './lib/lighthouse-metric.ts';

// Lighthouse 12's mobile control points, from core/audits/metrics/first-contentful-paint.js:
// HTTP Archive 8th and 25th percentiles.
export default lighthouseMetricCheck({
  id: 'speed-fcp',
  audit: 'first-contentful-paint',
  name: 'First Contentful Paint',
  curve: { p10: 1800, median: 3000 },
  unit: 'ms',
  description:
    'Time until the first text or image is painted. Reduce server time and render-blocking resources.',
});
