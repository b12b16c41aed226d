import { lighthouseMetricCheck } from './lib/lighthouse-metric.ts';

// Lighthouse 12's mobile control points, from core/audits/metrics/speed-index.js:
// HTTP Archive 5th and 25th percentiles.
export default lighthouseMetricCheck({
  id: 'speed-speed-index',
  audit: 'speed-index',
  name: 'Speed Index',
  curve: { p10: 3387, median: 5800 },
  unit: 'ms',
  description: 'How quickly the visible content of the page is painted.',
});
