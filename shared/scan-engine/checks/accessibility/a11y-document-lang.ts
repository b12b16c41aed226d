import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { htmlLang, isValidLangTag } from '../content/lib/page.ts';

// WCAG 3.1.1 (axe html-has-lang, html-lang-valid): screen readers pick pronunciation rules from
// the page language; without it they read in the user's default voice.

export default defineCheck({
  meta: {
    id: 'a11y-document-lang',
    title: 'Page language is declared',
    failureTitle: '<html> has no lang attribute',
    description:
      'Screen readers choose pronunciation from the lang attribute. Add a valid language to <html>, e.g. lang="en".',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const lang = htmlLang(loadDocument(Page.html));
    if (lang === null) return fail('<html> has no lang attribute');
    if (lang === '') return fail('<html> has no lang attribute: lang is empty');
    if (!isValidLangTag(lang)) return fail(`<html lang="${lang}"> is not a valid language`, { lang });
    return pass(`<html lang="${lang}"> declares the page language`, { lang });
  },
});
