import { defineCheck, notApplicable, pass } from '../../check.ts';
import { IMPACT_WEIGHT, ruleWeight } from './lib/axe-weights.ts';

// Full mode: axe-core run in the rendered page. Scored like Lighthouse's accessibility category:
// the weighted share of applicable rules that pass, each rule weighted by its impact.

export default defineCheck({
  meta: {
    id: 'a11y-axe',
    title: 'axe finds no accessibility violations',
    failureTitle: 'axe finds accessibility violations',
    description:
      'axe-core tests the rendered page against WCAG rules (contrast, names, ARIA, structure). Fix violations starting with critical and serious ones.',
    requiredArtifacts: ['Rendered'],
  },
  run({ Rendered }) {
    const axe = Rendered.axe;
    if (!axe) return notApplicable('axe did not run on this page');
    const failed = axe.violations.reduce((s, v) => s + ruleWeight(v.id, v.impact), 0);
    const passed = axe.passes.reduce((s, id) => s + ruleWeight(id, null), 0);
    const byImpact: Record<string, number> = {};
    for (const v of axe.violations)
      byImpact[v.impact ?? 'unknown'] = (byImpact[v.impact ?? 'unknown'] ?? 0) + 1;
    const evidence = {
      violations: axe.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes })),
      passes: axe.passes.length,
      byImpact,
    };
    if (axe.violations.length === 0)
      return pass(`axe found no violations (${axe.passes.length} rules pass)`, evidence);
    const score = failed + passed > 0 ? passed / (failed + passed) : 0;
    const worst = [...axe.violations].sort(
      (a, b) =>
        (IMPACT_WEIGHT[b.impact ?? ''] ?? 0) - (IMPACT_WEIGHT[a.impact ?? ''] ?? 0) || b.nodes - a.nodes,
    );
    const counts = ['critical', 'serious', 'moderate', 'minor']
      .filter((i) => byImpact[i])
      .map((i) => `${byImpact[i]} ${i}`)
      .join(', ');
    const top = worst
      .slice(0, 3)
      .map((v) => `${v.help} (${v.nodes} element${v.nodes === 1 ? '' : 's'})`)
      .join('; ');
    const message = `axe found ${axe.violations.length} violation${axe.violations.length > 1 ? 's' : ''} (${counts}): ${top}`;
    return { outcome: score >= 0.5 ? 'warn' : 'fail', score, message, evidence };
  },
});
