import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { plural } from '../content/lib/page.ts';
import { accessibleName, describe, example } from './lib/names.ts';
import { violations } from './lib/score.ts';

// WCAG 4.1.2 (axe frame-title; Lighthouse weight 7): an untitled iframe is announced as "frame".

export default defineCheck({
  meta: {
    id: 'a11y-frame-titles',
    title: 'Frames have titles',
    failureTitle: 'Frames have no title',
    description: 'Give every <iframe> a title that says what it contains, e.g. title="Map of our office".',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const frames = $('iframe, frame')
      .toArray()
      .filter((el) => el.attribs['aria-hidden'] !== 'true' && el.attribs.tabindex !== '-1');
    const untitled = frames.filter((el) => accessibleName($, el).name === '');
    return violations(
      untitled.length,
      frames.length,
      {
        none: 'Page has no frames',
        pass: `Every frame has a title (${plural(frames.length, 'frame')})`,
        fail: `${untitled.length} of ${frames.length} frames have no title${example(untitled)}`,
      },
      { untitled: untitled.map(describe) },
    );
  },
});
