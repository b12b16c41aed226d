import { contentProfile, isQuestionHeading } from '../../../geo-scoring/content.ts';
import { defineCheck, fail, pass, warn } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-question-headings',
    title: 'Subheadings are phrased as questions',
    failureTitle: 'No subheadings phrased as questions',
    description:
      'People ask assistants questions; a heading that matches the question ("How much does X cost?") tells the engine which passage answers it. Phrase key subheadings as the questions they answer.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const subs = contentProfile(Page.html, Page.finalUrl).headings.filter(
      (h) => h.level >= 2 && h.level <= 4,
    );
    const questions = subs.filter((h) => isQuestionHeading(h.text));
    const evidence = { subheadings: subs.length, questions: questions.map((h) => h.text).slice(0, 5) };
    if (subs.length === 0) return fail('No subheadings to match questions against', evidence);
    if (questions.length >= 2 || questions.length / subs.length >= 0.25) {
      return pass(`${questions.length} of ${subs.length} subheadings are questions`, evidence);
    }
    if (questions.length === 1) return warn(`1 of ${subs.length} subheadings is a question`, 0.7, evidence);
    return warn(`None of ${subs.length} subheadings is phrased as a question`, 0.3, evidence);
  },
});
