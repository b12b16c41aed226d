import { defineCheck } from '../../check.ts';
import { analyzeHsts } from '../../security/hsts.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'strict-transport-security',
    title: 'HTTP Strict Transport Security is set for at least six months',
    failureTitle: 'HTTP Strict Transport Security is missing or too short',
    description:
      'HSTS makes browsers use HTTPS for the site even when a link or typed address says http://. Send Strict-Transport-Security: max-age=31536000; includeSubDomains.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const hsts = analyzeHsts(Page);
    return securityResult(hsts.result, undefined, {
      header: Page.headers['strict-transport-security'] ?? null,
      maxAge: hsts.maxAge,
      includeSubDomains: hsts.includeSubDomains,
      preload: hsts.preload,
    });
  },
});
