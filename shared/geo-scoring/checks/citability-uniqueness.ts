import { defineCheck, graded } from '../../scan-engine/check.ts';
import {
  fold,
  LANGUAGE_WORDS,
  pageLanguage,
  phrasesFor,
} from '../../scan-engine/checks/content/lib/link-words.ts';
import { htmlLang } from '../../scan-engine/checks/content/lib/page.ts';
import { loadDocument } from '../../scan-engine/computed/document.ts';
import { authorship } from '../authorship.ts';
import { contentProfile, sentences } from '../content.ts';

// Points per signal. First-hand data and attributed statements are found by phrases in the
// page's language (content/lib/link-words.ts); for a language without a phrase list first-hand
// data is "not assessed" and its points drop out of the score rather than counting as missing.
const POINTS = { original: 0.3, quotations: 0.2, citations: 0.25, author: 0.15, date: 0.1 };
const LANGS_WITH_PHRASES = LANGUAGE_WORDS.filter((l) => l.originality).map((l) => l.lang);

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
    const $ = loadDocument(Page.html);
    const a = authorship($);
    const prose = p.passages.map((x) => x.text).join(' ');
    const lang = pageLanguage(htmlLang($), prose);
    const originality = lang ? phrasesFor('originality', lang) : null;
    const attribution = lang ? phrasesFor('attribution', lang) : null;
    const attributed = attribution ? sentences(prose).filter((s) => attribution.test(fold(s))).length : 0;
    const signals = {
      original: originality ? originality.test(fold(prose)) : null,
      // Quotations wherever they stand (a pull quote in an <aside> counts).
      quotations: p.blockquotes + p.inlineQuotes > 0 || attributed > 0,
      citations: p.outboundLinks,
      author: a.author !== null,
      date: (a.published ?? a.modified) !== null,
    };
    const earned =
      (signals.original ? POINTS.original : 0) +
      (signals.quotations ? POINTS.quotations : 0) +
      (signals.citations >= 2 ? POINTS.citations : signals.citations === 1 ? POINTS.citations / 2 : 0) +
      (signals.author ? POINTS.author : 0) +
      (signals.date ? POINTS.date : 0);
    const possible = signals.original === null ? 1 - POINTS.original : 1;
    const missing = [
      signals.original === false && 'first-hand data or findings',
      !signals.quotations && 'quotations',
      signals.citations < 2 && 'links to sources',
      !signals.author && 'an author',
      !signals.date && 'a date',
    ].filter((g): g is string => typeof g === 'string');
    const notAssessed =
      signals.original === null
        ? ` (first-hand data not assessed: no phrase list for ${lang ? `language "${lang}"` : 'an unknown language'}; we have ${LANGS_WITH_PHRASES.join(', ')})`
        : '';
    const msg =
      missing.length === 0
        ? `Original findings, quotations, cited sources, author and date${notAssessed}`
        : `Missing ${missing.join(', ')}${notAssessed}`;
    return graded(earned / possible, msg, {
      ...signals,
      lang,
      attributed,
      fix: missing.length ? `Add ${missing.join(', ')}` : undefined,
    });
  },
});
