import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { isHiddenByMarkup, plural } from '../content/lib/page.ts';
import { accessibleName, describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 4.1.2 (axe button-name, input-button-name): an icon-only button with no label is
// announced as just "button".

export default defineCheck({
  meta: {
    id: 'a11y-button-names',
    title: 'Buttons have accessible names',
    failureTitle: 'Buttons have no accessible name',
    description: 'Give every button visible text or, for icon buttons, an aria-label that says what it does.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const buttons = $(
      'button, input[type="button" i], input[type="submit" i], input[type="reset" i], [role="button"]',
    )
      .toArray()
      .filter((el) => !isHiddenByMarkup(el) && el.attribs['aria-hidden'] !== 'true');
    const unnamed = buttons.filter((el) => accessibleName($, el).name === '');
    return violations(
      unnamed.length,
      buttons.length,
      {
        none: 'Page has no buttons',
        pass: `Every button has a name (${plural(buttons.length, 'button')})`,
        fail: `${unnamed.length} of ${buttons.length} buttons have no accessible name${example(unnamed)}`,
      },
      { buttons: buttons.length, unnamed: unnamed.slice(0, 10).map(describe) },
    );
  },
});
