import { lighthouseMetricCheck } from './lib/lighthouse-metric.ts';

// Lighthouse 12's mobile control points, from core/audits/metrics/cumulative-layout-shift.js:
// 0.1 is web.dev's "good" CLS.
export default lighthouseMetricCheck({
  id: 'speed-cls',
  audit: 'cumulative-layout-shift',
  name: 'Cumulative Layout Shift',
  curve: { p10: 0.1, median: 0.25 },
  unit: 'unitless',
  title: 'Layout is stable while loading',
  failureTitle: 'Layout shifts while loading',
  description: 'How much visible content moves while loading. Reserve space for images, ads and embeds.',
});
