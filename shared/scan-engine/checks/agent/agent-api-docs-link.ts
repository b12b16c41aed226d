import { defineCheck, fail, pass } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import { collapsedText, isRealHref } from '../content/lib/page.ts';

// RFC 8631 link relations for service descriptions and docs, and the OpenAPI media types.
const LINK_SELECTOR =
  'link[rel~="service-desc" i], link[rel~="service-doc" i], link[rel~="describedby" i], link[type*="openapi" i], a[rel~="service-doc" i], a[rel~="service-desc" i]';
const API_HREF =
  /\/(?:api|apis|developers?|dev-docs|docs\/api|api-docs|api-reference|reference\/api|openapi|swagger|graphql)(?:[/.?#-]|$)/i;
const API_TEXT = /\b(?:api|developers?|openapi|swagger|graphql)\b/i;

export default defineCheck({
  meta: {
    id: 'agent-api-docs-link',
    title: 'Page links to API documentation',
    failureTitle: 'No link to API documentation',
    description:
      'Agents that land on a page look for a way to act through an API. Link your developer docs from the page, ideally with <link rel="service-desc"> to the OpenAPI file.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const $ = loadDocument(Page.html);
    const declared = $(LINK_SELECTOR)
      .map((_, el) => el.attribs.href ?? '')
      .get()
      .filter(isRealHref);
    const anchors = $('a[href]')
      .filter(
        (_, el) =>
          isRealHref(el.attribs.href) &&
          (API_HREF.test(el.attribs.href ?? '') || API_TEXT.test(collapsedText($, el))),
      )
      .map((_, el) => el.attribs.href ?? '')
      .get();
    const evidence = { declared, anchors: [...new Set(anchors)].slice(0, 5) };
    if (declared.length > 0) return pass(`Declares its API description: ${declared[0]}`, evidence);
    if (anchors.length > 0) return pass(`Links to API docs: ${anchors[0]}`, evidence);
    return fail('No link to an API description or developer docs', evidence);
  },
});
