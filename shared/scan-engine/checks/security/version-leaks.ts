import { defineCheck } from '../../check.ts';
import { loadDocument } from '../../computed/document.ts';
import {
  INTERNAL_HEADER_PATTERNS,
  mentionsVersion,
  SOFTWARE_HEADERS,
  VERSION_HEADERS,
} from '../../security/leaky-headers.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'version-leaks',
    title: 'Responses do not reveal software versions',
    failureTitle: 'Responses reveal software versions',
    description:
      'Headers such as Server: Apache/2.4.41, X-Powered-By: PHP/8.1 or X-AspNet-Version tell attackers which known vulnerabilities to try. Remove them or strip the versions.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const versioned: string[] = [];
    const named: string[] = [];
    for (const [name, value] of Object.entries(Page.headers)) {
      const shown = `${name}: ${value.slice(0, 120)}`;
      if (SOFTWARE_HEADERS.has(name)) {
        if (VERSION_HEADERS.has(name) || mentionsVersion(value)) versioned.push(shown);
        else named.push(shown);
      } else if (INTERNAL_HEADER_PATTERNS.some((p) => p.test(name))) {
        named.push(shown);
      }
    }
    const generator = loadDocument(Page.html)('meta[name="generator" i]').attr('content');
    if (generator && mentionsVersion(generator))
      versioned.push(`<meta name="generator" content="${generator.slice(0, 120)}">`);
    const evidence = { versioned, named };
    if (versioned.length > 0)
      return securityResult('version-leaks-version-disclosed', versioned.join('; '), evidence);
    if (named.length > 0) return securityResult('version-leaks-product-only', named.join('; '), evidence);
    return securityResult('version-leaks-none');
  },
});
