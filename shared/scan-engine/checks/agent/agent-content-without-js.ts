import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { bodyText, wordCount } from '../content/lib/page.ts';

// Markup of a client-rendered app shell: an empty mount point, or a <noscript> asking for JS.
const APP_SHELL = /<div[^>]+id=["'](?:root|app|__next|__nuxt|svelte|ember-app)["'][^>]*>\s*<\/div>/i;
const NEEDS_JS = /<noscript[^>]*>[^<]*(?:enable|requires?|need)[^<]*javascript/i;

export default defineCheck({
  meta: {
    id: 'agent-content-without-js',
    title: 'Content is readable without JavaScript',
    failureTitle: 'Content only appears after JavaScript runs',
    description:
      'Most AI crawlers (GPTBot, ClaudeBot, PerplexityBot) read the raw HTML and never run scripts. Render the main content on the server or as static HTML.',
    requiredArtifacts: ['Page'],
    optionalArtifacts: ['Rendered'],
  },
  run({ Page, Rendered }) {
    const raw = wordCount(bodyText(loadDocument(Page.html)));
    if (Rendered) {
      const rendered = wordCount(Rendered.visibleText);
      if (rendered === 0) return fail('The rendered page shows no text', { rawWords: raw, renderedWords: 0 });
      const ratio = Math.min(1, raw / rendered);
      const evidence = { rawWords: raw, renderedWords: rendered, ratio };
      const msg = `${Math.round(ratio * 100)}% of the rendered text is in the raw HTML (${raw} of ${rendered} words)`;
      if (ratio >= 0.8) return pass(msg, evidence);
      return ratio >= 0.4
        ? warn(msg, ratio, evidence)
        : fail(msg, { ...evidence, fix: 'Server-render the main content' });
    }
    // Quick mode: no render to compare with, so judge the raw HTML on its own.
    const shell = APP_SHELL.test(Page.html) || NEEDS_JS.test(Page.html);
    const evidence = { rawWords: raw, appShell: shell };
    if (raw >= 100) return pass(`Raw HTML carries ${raw} words of text`, evidence);
    if (shell && raw < 50) {
      return fail(`Raw HTML is an app shell with ${raw} words: the content needs JavaScript`, evidence);
    }
    return warn(`Raw HTML carries only ${raw} words of text`, raw / 100, evidence);
  },
});
