import { type ArtifactSet, isGatherError } from '../scan-engine/artifacts.ts';
import { contentProfile, median } from './content.ts';
import { citabilityModel } from './models/citability.ts';
import { OPTIMAL_SECTION_WORDS } from './rubric.ts';
import { fixFor, runModel, shortfalls } from './score-model.ts';

// The citability score (interface.md "Citability score"): five 0-100 dimensions on the rubric
// documented in models/citability.ts, with recommendations ordered by the points they would win.

export interface CitabilityDimensions {
  answerBlockQuality: number;
  selfContainment: number;
  structuralReadability: number;
  statisticalDensity: number;
  uniquenessSignals: number;
}

export interface Citability {
  url: string;
  overall: number;
  grade: string;
  summary: string;
  dimensions: CitabilityDimensions;
  recommendations: string[];
  optimalWordCount: boolean;
}

const DIMENSION_IDS: (keyof CitabilityDimensions)[] = [
  'answerBlockQuality',
  'selfContainment',
  'structuralReadability',
  'statisticalDensity',
  'uniquenessSignals',
];

export function scoreCitability(artifacts: ArtifactSet, url: string): Citability {
  const { score } = runModel(citabilityModel, artifacts);
  const dims = Object.fromEntries(
    DIMENSION_IDS.map((id) => [id, score.dimensions.find((d) => d.id === id)?.score ?? 0]),
  ) as unknown as CitabilityDimensions;

  const page = artifacts.Page;
  if (!page || isGatherError(page)) {
    const why = page ? page.error.message : 'the page was not fetched';
    return {
      url,
      overall: 0,
      grade: 'F',
      summary: `The page could not be analysed: ${why}`,
      dimensions: dims,
      recommendations: ['Make sure the page answers 200 to a plain HTTP request'],
      optimalWordCount: false,
    };
  }

  // Recommendations by points at stake: dimension weight times what the check missed.
  const weighted = score.dimensions.flatMap((d) =>
    shortfalls(citabilityModel, d).map((run) => ({ run, stake: d.weight * (1 - run.score) })),
  );
  const recommendations = [...new Set(weighted.sort((a, b) => b.stake - a.stake).map((w) => fixFor(w.run)))];

  const sectionWords = contentProfile(page.html, page.finalUrl)
    .sections.filter((s) => s.heading !== null)
    .map((s) => s.words);
  const mid = median(sectionWords);
  const optimalWordCount =
    mid !== null && mid >= OPTIMAL_SECTION_WORDS.min && mid <= OPTIMAL_SECTION_WORDS.max;

  return {
    url,
    overall: score.overallScore,
    grade: score.grade,
    summary: summarise(score.overallScore, score.grade, dims),
    dimensions: dims,
    recommendations,
    optimalWordCount,
  };
}

const LABELS: Record<keyof CitabilityDimensions, string> = {
  answerBlockQuality: 'answer blocks',
  selfContainment: 'self-containment',
  structuralReadability: 'structure and readability',
  statisticalDensity: 'statistics',
  uniquenessSignals: 'uniqueness signals',
};

function summarise(overall: number, grade: string, dims: CitabilityDimensions): string {
  const sorted = DIMENSION_IDS.map((id) => ({ id, v: dims[id] })).sort((a, b) => b.v - a.v);
  const best = sorted[0];
  const worst = sorted[sorted.length - 1];
  const head = `Citability ${overall}/100 (grade ${grade}).`;
  if (!best || !worst || best.v === worst.v) return head;
  return `${head} Strongest: ${LABELS[best.id]} (${best.v}); weakest: ${LABELS[worst.id]} (${worst.v}).`;
}
