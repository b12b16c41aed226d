import { lighthouseMetricCheck } from './lib/lighthouse-metric.ts';

// Lighthouse 12's mobile control points, from core/audits/metrics/total-blocking-time.js:
// chosen by the Lighthouse team to ease the harsher HTTP Archive percentiles.
export default lighthouseMetricCheck({
  id: 'speed-tbt',
  audit: 'total-blocking-time',
  name: 'Total Blocking Time',
  curve: { p10: 200, median: 600 },
  unit: 'ms',
  description:
    'Time the main thread was blocked by long tasks between first paint and interactive. Ship less JavaScript and split long tasks.',
});
