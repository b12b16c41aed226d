import { defineCheck, graded, notApplicable } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { htmlLang, mainText } from './lib/page.ts';
import { fleschReadingEase, isEnglish } from './lib/readability.ts';

// Flesch reading ease bands (Flesch 1948): 60+ plain English, 30-60 fairly difficult to
// difficult, under 30 very difficult. 60 maps to 0.9 (pass) and 30 to 0.5 (the fail line).
const MIN_WORDS = 100;

function scoreFor(ease: number): number {
  if (ease >= 30) return Math.min(1, 0.5 + ((ease - 30) * 0.4) / 30);
  return Math.max(0, (0.5 * ease) / 30);
}

function band(ease: number): string {
  if (ease >= 70) return 'easy';
  if (ease >= 60) return 'plain English';
  if (ease >= 50) return 'fairly difficult';
  if (ease >= 30) return 'difficult';
  return 'very difficult';
}

export default defineCheck({
  meta: {
    id: 'content-readability',
    title: 'Text is easy to read',
    failureTitle: 'Text is hard to read',
    description:
      'Shorter sentences and everyday words keep more readers. Aim for a Flesch reading ease of 60 or more (plain English).',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const text = mainText($);
    const lang = htmlLang($);
    if (!isEnglish(text, lang))
      return notApplicable(
        `Readability (Flesch reading ease) is measured for English text only; this page ${lang ? `is in "${lang}"` : 'does not read as English'}, so it does not apply`,
      );
    const r = fleschReadingEase(text);
    if (r.words < MIN_WORDS)
      return notApplicable(`Too little prose to measure readability (${r.words} words)`);
    const ease = Math.round(r.score);
    const perSentence = (r.words / r.sentences).toFixed(1);
    const evidence = {
      fleschReadingEase: ease,
      words: r.words,
      sentences: r.sentences,
      wordsPerSentence: Number(perSentence),
    };
    const s = scoreFor(r.score);
    if (s >= 0.9)
      return graded(s, `Text reads easily: Flesch reading ease ${ease} (${band(r.score)})`, evidence);
    return graded(
      s,
      `Text is hard to read: Flesch reading ease ${ease} (${band(r.score)}), ${perSentence} words per sentence`,
      evidence,
    );
  },
});
