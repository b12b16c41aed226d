import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { headings } from '../content/lib/page.ts';

// Parts and their share of the score: landmarks tell an agent where the content is, headings
// give it an outline to chunk by.
const PARTS = { main: 0.3, landmarks: 0.15, singleH1: 0.25, hierarchy: 0.15, subheadings: 0.15 };

export default defineCheck({
  meta: {
    id: 'agent-semantic-structure',
    title: 'Page uses semantic landmarks and a heading outline',
    failureTitle: 'Page lacks semantic landmarks or a heading outline',
    description:
      'Agents find the main content through <main>, <header>, <nav> and <footer>, and split it into passages by headings. Use one <h1>, then <h2>/<h3> without skipping levels.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    if ($('body').children().length === 0) return notApplicable('Page has no body content');
    const hs = headings($);
    const h1s = hs.filter((h) => h.level === 1).length;
    const skipped = hs.filter((h, i) => i > 0 && h.level > (hs[i - 1]?.level ?? 0) + 1).length;
    const found = {
      main: $('main, [role="main"]').length > 0,
      landmarks:
        $('header, nav, footer, [role="banner"], [role="navigation"], [role="contentinfo"]').length > 0,
      singleH1: h1s === 1,
      hierarchy: hs.length > 0 && skipped === 0,
      subheadings: hs.filter((h) => h.level === 2 || h.level === 3).length >= 2,
    };
    const score = (Object.keys(PARTS) as (keyof typeof PARTS)[]).reduce(
      (s, k) => s + (found[k] ? PARTS[k] : 0),
      0,
    );
    const missing: string[] = [];
    if (!found.main) missing.push('no <main> landmark');
    if (!found.landmarks) missing.push('no header/nav/footer landmarks');
    if (!found.singleH1) missing.push(h1s === 0 ? 'no <h1>' : `${h1s} <h1> elements`);
    if (hs.length > 0 && skipped > 0)
      missing.push(`${skipped} skipped heading level${skipped === 1 ? '' : 's'}`);
    if (!found.subheadings) missing.push('fewer than two <h2>/<h3> subheadings');
    const evidence = { ...found, headings: hs.length, h1s, skippedLevels: skipped };
    return graded(
      score,
      missing.length === 0
        ? 'Semantic landmarks and a clean heading outline'
        : `Structure gaps: ${missing.join(', ')}`,
      evidence,
    );
  },
});
