import { defineCheck } from '../../check.ts';
import { analyzeCsp } from '../../security/csp.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'content-security-policy',
    title: 'Content Security Policy restricts scripts',
    failureTitle: 'Content Security Policy is missing or does not stop script injection',
    description:
      "A Content-Security-Policy limits where scripts and other content may load from, the main defence against cross-site scripting. Start from default-src 'none' and allow only what the page needs, without 'unsafe-inline' or 'unsafe-eval'.",
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const csp = analyzeCsp(Page);
    return securityResult(csp.result, undefined, {
      http: csp.http,
      meta: csp.meta,
      policies: csp.policies,
      directives: csp.directives,
      policy: csp.flags,
    });
  },
});
