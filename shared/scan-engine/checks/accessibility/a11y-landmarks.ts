import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { listText } from '../content/lib/page.ts';

// WCAG 1.3.1 and 2.4.1 (axe region, landmark-one-main, bypass): landmarks let screen-reader users
// jump straight to the navigation or the main content.
const LANDMARKS: Record<string, string> = {
  main: 'main, [role="main"]',
  navigation: 'nav, [role="navigation"]',
  banner: 'body > header, [role="banner"]',
  contentinfo: 'body > footer, [role="contentinfo"]',
};

export default defineCheck({
  meta: {
    id: 'a11y-landmarks',
    title: 'Page is structured with landmarks',
    failureTitle: 'Page has no landmarks',
    description:
      'Wrap the main content in <main> and menus in <nav> (plus <header> and <footer>) so assistive technology can jump between regions.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const found = Object.keys(LANDMARKS).filter((name) => $(LANDMARKS[name] as string).length > 0);
    const evidence = { landmarks: found };
    if (found.length === 0)
      return fail('Page has no landmarks (no <main>, <nav>, <header> or <footer>)', evidence);
    if (!found.includes('main'))
      return warn(`Page has no <main> landmark (has ${listText(found)})`, 0.7, evidence);
    return pass(`Page has landmarks: ${listText(found)}`, evidence);
  },
});
