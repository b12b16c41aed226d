import { defineCheck, graded } from '../../check.ts';
import { curveScore, fetched, kib } from './lib/network.ts';

// Lighthouse's total-byte-weight curve (~25th and ~10th percentile of HTTP Archive page weight):
// 2,667 KiB scores 0.9, 4,000 KiB scores 0.5.
const CURVE = { p10: 2667 * 1024, median: 4000 * 1024 };

export default defineCheck({
  meta: {
    id: 'speed-page-weight',
    title: 'Page weight is moderate',
    failureTitle: 'Page is heavy',
    description:
      'Every byte costs load time and data on mobile networks. Trim large images, unused scripts and fonts to keep the page well under 2.5 MB.',
    requiredArtifacts: ['Page', 'Resources'],
  },
  run({ Page, Resources }) {
    const entries = fetched(Resources.entries);
    const total = Page.bytes.transferred + entries.reduce((s, e) => s + e.bytes, 0);
    const score = curveScore(CURVE, total);
    const byType: Record<string, number> = { document: Page.bytes.transferred };
    for (const e of entries) byType[e.type] = (byType[e.type] ?? 0) + e.bytes;
    const partial = Resources.skipped > 0 ? ` (at least; ${Resources.skipped} resources not measured)` : '';
    const evidence = { totalBytes: total, byType, requests: entries.length + 1, skipped: Resources.skipped };
    if (score >= 0.9)
      return graded(score, `Page weighs ${kib(total)} in ${entries.length + 1} requests${partial}`, evidence);
    const heaviest = Object.entries(byType).sort((a, b) => b[1] - a[1])[0];
    return graded(
      score,
      `Page is heavy: ${kib(total)}${partial}, mostly ${heaviest?.[0]} (${kib(heaviest?.[1] ?? 0)})`,
      evidence,
    );
  },
});
