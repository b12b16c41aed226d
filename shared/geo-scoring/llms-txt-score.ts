import type { LlmsTxtArtifact } from '../scan-engine/artifacts.ts';
import { allLinks, servedLlmsTxt } from './llms-txt.ts';
import { llmsTxtQualityModel } from './models/llms-txt-quality.ts';
import { runModel } from './score-model.ts';

// The llms.txt quality result served by the free tool (POST /api/tools/llmstxt).

export interface LlmsTxtScore {
  url: string;
  present: boolean;
  valid: boolean;
  score: number;
  grade: string;
  issues: string[];
  passes: string[];
  title: string | null;
  summary: string | null;
  sectionCount: number;
  linkCount: number;
}

export function scoreLlmsTxt(artifact: LlmsTxtArtifact): LlmsTxtScore {
  const { score } = runModel(llmsTxtQualityModel, { LlmsTxt: artifact });
  const dim = score.dimensions[0];
  const doc = servedLlmsTxt(artifact);
  return {
    url: artifact.url,
    present: doc !== null,
    valid: doc?.valid ?? false,
    score: score.overallScore,
    grade: score.grade,
    issues: dim?.issues ?? [],
    passes: dim?.passes ?? [],
    title: doc?.title ?? null,
    summary: doc?.summary ?? null,
    sectionCount: doc?.sections.length ?? 0,
    linkCount: doc ? allLinks(doc).length : 0,
  };
}
