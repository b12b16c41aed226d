import { defineCheck } from '../../check.ts';
import { metaPolicies } from '../../security/http-equiv.ts';
import { securityResult } from '../../security/result.ts';

const PRIVATE = new Set(['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin']);
const UNSAFE = new Set(['origin', 'origin-when-cross-origin', 'unsafe-url', 'no-referrer-when-downgrade']);

export default defineCheck({
  meta: {
    id: 'referrer-policy',
    title: 'Referrer-Policy keeps URLs private',
    failureTitle: 'Referrer-Policy leaks URLs or is invalid',
    description:
      'The Referer header can leak private paths and query strings to other sites. Send Referrer-Policy: strict-origin-when-cross-origin (or stricter).',
    requiredArtifacts: ['Page'],
  },
  run({ Page }) {
    const header = Page.headers['referrer-policy'];
    const meta = metaPolicies(Page.html).referrer;
    if (header === undefined && meta === null) return securityResult('referrer-policy-not-implemented');
    // The meta tag applies after the header; within a list the last value browsers know wins.
    const values = [header, meta].filter((v): v is string => v !== undefined && v !== null).join(',');
    const policy = values
      .split(',')
      .map((v) => v.trim().toLowerCase())
      .filter((v) => PRIVATE.has(v) || UNSAFE.has(v))
      .pop();
    const evidence = { header: header ?? null, meta, policy: policy ?? null };
    if (policy && PRIVATE.has(policy)) return securityResult('referrer-policy-private', undefined, evidence);
    if (policy) return securityResult('referrer-policy-unsafe', policy, evidence);
    return securityResult('referrer-policy-header-invalid', undefined, evidence);
  },
});
