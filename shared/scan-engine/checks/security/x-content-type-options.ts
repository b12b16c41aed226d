import { defineCheck } from '../../check.ts';
import { securityResult } from '../../security/result.ts';

export default defineCheck({
  meta: {
    id: 'x-content-type-options',
    title: 'X-Content-Type-Options is nosniff',
    failureTitle: 'X-Content-Type-Options: nosniff is missing',
    description:
      'nosniff stops browsers guessing a response type other than the declared one, which can turn an upload into a script. Send X-Content-Type-Options: nosniff.',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['x-content-type-options'];
    if (header === undefined) return securityResult('x-content-type-options-not-implemented');
    const ok = header.slice(0, 256).trim().toLowerCase() === 'nosniff';
    return securityResult(
      ok ? 'x-content-type-options-nosniff' : 'x-content-type-options-header-invalid',
      undefined,
      {
        header: header.slice(0, 256),
      },
    );
  },
});
