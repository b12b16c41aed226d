// The citability rubric's thresholds, in one place so the checks and the documentation agree.
// Sources: Aggarwal et al., "GEO: Generative Engine Optimization" (KDD 2024), which measured
// that adding statistics, quotations and cited sources raised a source's visibility in
// generative answers by up to about 40%, fluent easy-to-read text helped less and keyword
// stuffing not at all; and answer-engine practice on passage length: a direct answer of 40-60
// words opening each section (the featured-snippet length), and sections of about 134-167
// words, the band reported for the passages AI answers quote most.

/** Length of the direct answer that opens a section. */
export const ANSWER_BLOCK_WORDS = {
  ideal: { min: 40, max: 60 },
  acceptable: { min: 25, max: 100 },
  max: 160,
} as const;

/** Section (retrieval chunk) length: the 134-167 optimum, widened because chunkers do not split exactly at headings. */
export const OPTIMAL_SECTION_WORDS = { min: 100, max: 200 } as const;

/** Full marks for statistics at this many figures per 100 words, and this share of fact-bearing sentences. */
export const STATISTICS_TARGET = { figuresPer100Words: 1.5, factSentenceShare: 0.3 } as const;

/** Readable prose: average words per passage and per sentence at which structure scores full marks. */
export const READABLE = { passageWords: 80, sentenceWords: 22, sentenceWordsPoor: 35 } as const;

// First-hand material ("we surveyed", "our data") and attributed statements ("according to")
// are phrase lists per language: shared/scan-engine/checks/content/lib/link-words.ts (phrasesFor).

/**
 * Thin content cannot earn full marks on a ratio: statistics and structure are scaled by
 * min(1, prose words / this). A listing page's twelve 13-word card blurbs are not 12 passages of
 * prose; an article of 300 words of paragraphs is.
 */
export const PROSE_FULL_WORDS = 300;
export const proseVolume = (proseWords: number) => Math.min(1, proseWords / PROSE_FULL_WORDS);
