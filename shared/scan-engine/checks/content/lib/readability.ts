import { forEachWord, hasWords, words } from './page.ts';

// Flesch reading ease (Flesch 1948): 206.835 - 1.015 * words/sentence - 84.6 * syllables/word.
// Calibrated for English only; 60-70 is "plain English", below 30 "very difficult".

// Words repeat: a long page has a few thousand distinct ones among tens of thousands.
const known = new Map<string, number>();

/** Syllables of an English word by the usual vowel-group heuristic (good to about +-1). */
export function syllables(word: string): number {
  let n = known.get(word);
  if (n === undefined) {
    if (known.size >= 50_000) known.clear();
    n = countSyllables(word);
    known.set(word, n);
  }
  return n;
}

function countSyllables(word: string): number {
  let w = word.toLowerCase().replace(/[^a-z]/g, '');
  if (w.length === 0) return 0;
  if (w.length <= 3) return 1;
  w = w.replace(/(?:[^laeiouy]es|[^laeiouy]ed|[^laeiouy]e)$/, (m) => m[0] ?? '').replace(/^y/, '');
  return Math.max(1, w.match(/[aeiouy]+/g)?.length ?? 0);
}

export interface Readability {
  words: number;
  sentences: number;
  syllables: number;
  score: number; // Flesch reading ease
}

/**
 * Flesch reading ease of prose. Text arrives with one block element per line; lines of fewer than
 * three words (menu items, button labels) are not prose and are left out, and every line ends a
 * sentence so that headings without a full stop do not run into the next paragraph.
 */
export function fleschReadingEase(text: string): Readability {
  let wordCount = 0;
  let sentenceCount = 0;
  let syllableCount = 0;
  for (const line of text.split('\n')) {
    const lineWords = words(line);
    if (lineWords.length < 3) continue;
    const sentences = line.split(/[.!?]+(?=\s|$)/).filter((s) => hasWords(s, 1));
    sentenceCount += Math.max(1, sentences.length);
    wordCount += lineWords.length;
    for (const w of lineWords) syllableCount += syllables(w);
  }
  const score =
    wordCount === 0 ? 0 : 206.835 - 1.015 * (wordCount / sentenceCount) - 84.6 * (syllableCount / wordCount);
  return { words: wordCount, sentences: sentenceCount, syllables: syllableCount, score };
}

// The most frequent English function words; running English prose is about 40% these.
const FUNCTION_WORDS = new Set(
  'the of and to a in is it you that he was for on are with as i his they be at one have this from or had by not but what some we can out other were all there when up use your how said an each she which do their if will way about many then them would so these her him has more could our'.split(
    ' ',
  ),
);

/** Whether text reads as English: the page's lang when given, else the share of function words. */
export function isEnglish(text: string, lang: string | null): boolean {
  if (lang) return /^en\b/i.test(lang);
  // Counted in one pass without a list of every word: only words as short as a function word are
  // lower-cased and looked up (a longer word never lower-cases to an ASCII function word).
  let common = 0;
  const all = forEachWord(text, (start, end) => {
    if (end - start <= LONGEST_FUNCTION_WORD && FUNCTION_WORDS.has(text.slice(start, end).toLowerCase()))
      common++;
  });
  if (all === 0) return false;
  return common / all >= 0.15;
}
const LONGEST_FUNCTION_WORD = Math.max(...[...FUNCTION_WORDS].map((w) => w.length));
