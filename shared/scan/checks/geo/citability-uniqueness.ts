import { defineCheck, graded } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { authorship } from '../../geo/authorship.ts';
import { contentProfile, sentences } from '../../geo/content.ts';
import { ATTRIBUTION, ORIGINALITY } from '../../geo/rubric.ts';

export default defineCheck({
  meta: {
    id: 'citability-uniqueness',
    title: 'Content carries original, attributed material',
    failureTitle: 'Content carries little original or attributed material',
    description:
      'Engines cite the source that adds something: first-hand data, expert quotations and references to other sources (quotation and citation addition both raised visibility in the GEO study). Add your own findings, quote named experts, link your sources and sign the piece.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    const a = authorship(loadDocument(Page.html));
    const prose = p.passages.map((x) => x.text).join(' ');
    const attributed = sentences(prose).filter((s) => ATTRIBUTION.test(s)).length;
    const signals = {
      original: ORIGINALITY.test(prose),
      quotations: p.blockquotes + p.inlineQuotes > 0 || attributed > 0,
      citations: p.outboundLinks,
      author: a.author !== null,
      date: (a.published ?? a.modified) !== null,
    };
    const score =
      (signals.original ? 0.3 : 0) +
      (signals.quotations ? 0.2 : 0) +
      (signals.citations >= 2 ? 0.25 : signals.citations === 1 ? 0.12 : 0) +
      (signals.author ? 0.15 : 0) +
      (signals.date ? 0.1 : 0);
    const missing = [
      !signals.original && 'first-hand data or findings',
      !signals.quotations && 'quotations',
      signals.citations < 2 && 'links to sources',
      !signals.author && 'an author',
      !signals.date && 'a date',
    ].filter((g): g is string => typeof g === 'string');
    const msg =
      missing.length === 0
        ? 'Original findings, quotations, cited sources, author and date'
        : `Missing ${missing.join(', ')}`;
    return graded(score, msg, {
      ...signals,
      attributed,
      fix: missing.length ? `Add ${missing.join(', ')}` : undefined,
    });
  },
});
