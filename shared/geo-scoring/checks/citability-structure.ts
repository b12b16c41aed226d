import { defineCheck, fail, graded } from '../../scan-engine/check.ts';
import { wordCount } from '../../scan-engine/checks/content/lib/page.ts';
import { contentProfile, sentences } from '../content.ts';
import { proseVolume, READABLE } from '../rubric.ts';

/** 1 at or under `good`, falling linearly to 0 at `poor`. */
const under = (value: number, good: number, poor: number) =>
  Math.max(0, Math.min(1, (poor - value) / (poor - good)));

export default defineCheck({
  meta: {
    id: 'citability-structure',
    title: 'Content is structured and easy to read',
    failureTitle: 'Content is hard to scan and parse',
    description:
      'Headings, lists, tables and short sentences make content easy to chunk and to quote correctly (the GEO study found fluent, easy-to-understand text is cited more). Break long paragraphs, use subheadings every few paragraphs and keep sentences near 20 words.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    if (p.words === 0) return fail('No readable content', { fix: 'Publish the content as HTML text' });
    const subheadings = p.headings.filter((h) => h.level >= 2).length;
    const avgPassage = p.passages.length
      ? p.passages.reduce((s, x) => s + x.words, 0) / p.passages.length
      : p.words;
    const prose = p.passages.map((x) => x.text).join(' ');
    const sentenceCount = sentences(prose).length;
    const avgSentence = sentenceCount ? wordCount(prose) / sentenceCount : avgPassage;
    const parts = {
      headings: subheadings >= 2 ? 0.25 : subheadings === 1 ? 0.12 : 0,
      listsOrTables: p.lists + p.tables > 0 ? 0.2 : 0,
      passageLength: 0.2 * under(avgPassage, READABLE.passageWords, READABLE.passageWords * 3),
      sentenceLength: 0.2 * under(avgSentence, READABLE.sentenceWords, READABLE.sentenceWordsPoor),
      singleH1: p.headings.filter((h) => h.level === 1).length === 1 ? 0.15 : 0,
    };
    // Headings and short sentences on a page with little prose (a listing of cards) are layout,
    // not readable content: scaled by the volume of prose (to 30% with none).
    const volume = proseVolume(p.proseWords);
    const score = (0.3 + 0.7 * volume) * Object.values(parts).reduce((a, b) => a + b, 0);
    const gaps = [
      subheadings < 2 && 'add subheadings',
      parts.listsOrTables === 0 && 'use lists or tables',
      avgPassage > READABLE.passageWords && `shorten paragraphs (average ${Math.round(avgPassage)} words)`,
      avgSentence > READABLE.sentenceWords && `shorten sentences (average ${Math.round(avgSentence)} words)`,
      parts.singleH1 === 0 && 'use exactly one <h1>',
      volume < 1 && `write more prose (${p.proseWords} words in paragraphs)`,
    ].filter((g): g is string => typeof g === 'string');
    return graded(
      score,
      `${subheadings} subheadings, ${p.lists} lists, ${p.tables} tables; ${Math.round(avgSentence)} words per sentence`,
      { ...parts, fix: gaps.length ? `To improve structure: ${gaps.join(', ')}` : undefined },
    );
  },
});
