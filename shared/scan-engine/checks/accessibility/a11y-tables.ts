import type { Element } from 'domhandler';
import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { hasDescendant, plural } from '../content/lib/page.ts';
import { violations } from './lib/score.ts';

// WCAG 1.3.1 and 1.3.2: a table without header cells is either a layout table (read cell by cell,
// often in a meaningless order; failure F49) or a data table whose cells cannot be related to
// their headers (F91). Layout tables marked role="presentation" are announced as plain content.

export default defineCheck({
  meta: {
    id: 'a11y-tables',
    title: 'Tables are data tables with headers',
    failureTitle: 'Tables are used for layout or lack headers',
    description:
      'Lay pages out with CSS, not tables. Give data tables <th> header cells (and a <caption>) so each cell can be read with its headers.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const tables = $('table')
      .toArray()
      .filter((t) => !['presentation', 'none'].includes((t.attribs.role ?? '').toLowerCase()));
    // Header cells are what relate data to headers: a <thead> of plain <td>s or a caption is not enough.
    const headerless = tables.filter((t) => !hasDescendant(t, isHeaderCell));
    const nested = headerless.filter((t) => hasDescendant(t, (d) => d.name === 'table')).length;
    return violations(
      headerless.length,
      tables.length,
      {
        none: 'Page has no tables',
        pass: `Every table has header cells (${plural(tables.length, 'table')})`,
        fail: `${headerless.length} of ${tables.length} tables have no header cells${nested ? ` (${nested} nested: a layout grid)` : ''}`,
      },
      { tables: tables.length, headerless: headerless.length, nested },
    );
  },
});

/** th, [role="columnheader"], [role="rowheader"] */
const isHeaderCell = (el: Element) =>
  el.name === 'th' || el.attribs.role === 'columnheader' || el.attribs.role === 'rowheader';
