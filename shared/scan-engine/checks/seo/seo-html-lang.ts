import { defineCheck, fail, pass, warn } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { htmlLang, isValidLangTag } from '../content/lib/page.ts';

export default defineCheck({
  meta: {
    id: 'seo-html-lang',
    title: '<html> declares the page language',
    failureTitle: '<html> has no lang attribute',
    description:
      'The lang attribute tells search engines (and screen readers) which language the page is in, so it is shown to the right audience. Add e.g. <html lang="en">.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const lang = htmlLang(loadDocument(Page.html));
    if (lang === null) return fail('<html> has no lang attribute');
    if (lang === '') return fail('<html> has no lang attribute: lang is empty');
    if (!isValidLangTag(lang))
      return warn(`<html lang="${lang}"> is not a valid language tag`, 0.4, { lang });
    return pass(`Page language is declared: ${lang}`, { lang });
  },
});
