import type { Check } from '../../../check.ts';
import { defineCheck, graded, notApplicable } from '../../../check.ts';
import { curveScore, seconds } from './network.ts';

// A lab metric from the Lighthouse report, rescored with Lighthouse's own log-normal curve so the
// score matches Lighthouse's metric score (and stays comparable if we retune elsewhere).

export interface MetricSpec {
  id: string;
  audit: string; // Lighthouse audit id holding numericValue
  name: string; // e.g. "Largest Contentful Paint"
  curve: { p10: number; median: number };
  unit: 'ms' | 'unitless';
  description: string;
  title?: string;
  failureTitle?: string;
}

export function lighthouseMetricCheck(spec: MetricSpec): Check<'Lighthouse'> {
  const show = (v: number) => (spec.unit === 'ms' ? seconds(v) : v.toFixed(3));
  return defineCheck({
    meta: {
      id: spec.id,
      title: spec.title ?? `${spec.name} is fast`,
      failureTitle: spec.failureTitle ?? `${spec.name} is slow`,
      description: spec.description,
      requiredArtifacts: ['Lighthouse'],
    },
    run({ Lighthouse }) {
      const value = Lighthouse.audits[spec.audit]?.numericValue;
      if (value === undefined || !Number.isFinite(value)) {
        return notApplicable(
          `Lighthouse did not measure ${spec.name}${Lighthouse.runtimeError ? ` (${Lighthouse.runtimeError})` : ''}`,
        );
      }
      const score = curveScore(spec.curve, value);
      const verdict = score >= 0.9 ? 'good' : score >= 0.5 ? 'needs improvement' : 'poor';
      return graded(score, `${spec.name} is ${show(value)} (${verdict})`, { value, curve: spec.curve });
    },
  });
}
