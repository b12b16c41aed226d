import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isHiddenByMarkup, plural } from '../content/lib/page.ts';
import { accessibleName, describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 2.4.4 and 4.1.2 (axe link-name; Lighthouse link-text): a link needs a name, and a name
// like "click here" says nothing when links are listed out of context (failure F84). A link with
// no name blocks the user; a vague one slows them down, so it counts half.
const VAGUE = new Set([
  ...['click here', 'click', 'here', 'right here', 'click this', 'this', 'link', 'go', 'start', 'continue'],
  ...['more', 'read more', 'learn more', 'more info', 'more information', 'details'],
]);

export default defineCheck({
  meta: {
    id: 'a11y-link-names',
    title: 'Links have descriptive names',
    failureTitle: 'Links have no accessible name',
    description:
      'A link must say where it goes: give image links alt text and replace "click here" or "read more" with the destination.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const links = $('a[href], area[href], [role="link"]')
      .toArray()
      .filter((el) => !isHiddenByMarkup(el) && el.attribs['aria-hidden'] !== 'true');
    const names = new Map(links.map((el) => [el, accessibleName($, el).name]));
    const unnamed = links.filter((el) => names.get(el) === '');
    // "Read more...", "More »": trailing dots and arrows do not add meaning.
    const vague = links.filter((el) =>
      VAGUE.has((names.get(el) ?? '').toLowerCase().replace(/[.…»›>\s]+$/, '')),
    );
    const parts = [
      unnamed.length
        ? `${unnamed.length} ${unnamed.length === 1 ? 'has' : 'have'} no name${example(unnamed)}`
        : '',
      vague[0]
        ? `${vague.length} only ${vague.length === 1 ? 'says' : 'say'} "${names.get(vague[0])}"${vague.length > 1 ? ' or similar' : ''}`
        : '',
    ].filter(Boolean);
    return violations(
      unnamed.length + vague.length / 2,
      links.length,
      {
        none: 'Page has no links',
        pass: `Every link has a descriptive name (${plural(links.length, 'link')})`,
        fail: `${unnamed.length + vague.length} of ${links.length} links are not descriptive: ${parts.join('; ')}`,
      },
      { links: links.length, unnamed: unnamed.slice(0, 10).map(describe), vague: vague.length },
    );
  },
});
