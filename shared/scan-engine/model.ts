// A scoring model is data: which checks make up each dimension and with what weight, and how a
// score maps to a grade. Versioned; every stored result records the model id and version.

export interface ModelCheckRef {
  id: string; // a check id from the registry
  weight: number;
  /** A failing gating check caps its dimension's score (e.g. no HTTPS caps security at 20). */
  gate?: { cap: number };
}

export interface ModelDimension {
  id: string;
  name: string;
  weight: number;
  /**
   * weighted (default): weighted mean of check scores.
   * modifiers: Observatory-style, 100 plus the modifier of each applicable check's result
   * (`evidence.result`, looked up in shared/scan-engine/security/score-table.ts at scoring time); bonuses
   * (positive modifiers) count only when the score before bonuses is at least 90; clamped 0..100.
   * The dimension's evidence keeps the raw Observatory score and grade.
   */
  method?: 'weighted' | 'modifiers';
  /**
   * True when the dimension rests on the response and the site's files rather than the page's
   * content (security headers, robots.txt, well-known files): it is still scored when the page is
   * an error page or a directory listing. Every other dimension is then not computed.
   */
  pageIndependent?: boolean;
  checks: ModelCheckRef[];
}

export interface GradeBand {
  min: number; // inclusive lower bound on a 0..100 score
  grade: string;
}

export interface ScoringModel {
  id: string;
  version: string;
  description: string;
  dimensions: ModelDimension[];
  grades: GradeBand[]; // highest min first
  /** Shown beside the composite but weighted 0 (B's agent_correlation). */
  researchSignals?: { id: string; name: string }[];
}

export function gradeFor(model: Pick<ScoringModel, 'grades'>, score: number): string {
  for (const band of model.grades) if (score >= band.min) return band.grade;
  return model.grades[model.grades.length - 1]?.grade ?? 'F';
}

export const LETTER_GRADES: GradeBand[] = [
  { min: 90, grade: 'A' },
  { min: 80, grade: 'B' },
  { min: 70, grade: 'C' },
  { min: 60, grade: 'D' },
  { min: 0, grade: 'F' },
];
