import { contentProfile } from '../../../geo-scoring/content.ts';
import { defineCheck, fail, graded, notApplicable } from '../../check.ts';

export default defineCheck({
  meta: {
    id: 'agent-lists-tables',
    title: 'Content uses lists and tables',
    failureTitle: 'Content has no lists or tables',
    description:
      'Lists and tables with header cells carry steps, options and comparisons in a shape agents extract reliably. Put enumerations in <ul>/<ol> and tabular data in <table> with <th>.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const p = contentProfile(Page.html, Page.finalUrl);
    const evidence = {
      lists: p.lists,
      tables: p.tables,
      tablesWithHeaders: p.tablesWithHeaders,
      words: p.words,
    };
    if (p.words < 150) return notApplicable(`Too little content (${p.words} words) to need lists or tables`);
    if (p.lists === 0 && p.tables === 0)
      return fail(`${p.words} words of content without a list or table`, evidence);
    const score =
      (p.lists > 0 ? 0.6 : 0) + (p.tablesWithHeaders > 0 || p.lists >= 2 ? 0.4 : p.tables > 0 ? 0.2 : 0);
    const parts = [
      `${p.lists} list${p.lists === 1 ? '' : 's'}`,
      `${p.tables} table${p.tables === 1 ? '' : 's'}`,
    ];
    const note =
      p.tables > p.tablesWithHeaders ? ` (${p.tables - p.tablesWithHeaders} without <th> headers)` : '';
    return graded(score, `Content has ${parts.join(' and ')}${note}`, evidence);
  },
});
