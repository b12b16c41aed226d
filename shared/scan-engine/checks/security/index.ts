import type { Check } from '../../check.ts';
import type { ModelDimension } from '../../model.ts';
import contentSecurityPolicy from './content-security-policy.ts';
import cookies from './cookies.ts';
import crossOriginEmbedderPolicy from './cross-origin-embedder-policy.ts';
import crossOriginOpenerPolicy from './cross-origin-opener-policy.ts';
import crossOriginResourcePolicy from './cross-origin-resource-policy.ts';
import crossOriginResourceSharing from './cross-origin-resource-sharing.ts';
import https from './https.ts';
import mixedContent from './mixed-content.ts';
import redirection from './redirection.ts';
import referrerPolicy from './referrer-policy.ts';
import strictTransportSecurity from './strict-transport-security.ts';
import subresourceIntegrity from './subresource-integrity.ts';
import versionLeaks from './version-leaks.ts';
import xContentTypeOptions from './x-content-type-options.ts';
import xFrameOptions from './x-frame-options.ts';

// Checks of this folder, registered here in a stable order: HTTPS first, then Mozilla HTTP
// Observatory's tests, then our additions.
export const securityChecks: Check[] = [
  https,
  contentSecurityPolicy,
  cookies,
  crossOriginResourceSharing,
  redirection,
  referrerPolicy,
  strictTransportSecurity,
  subresourceIntegrity,
  xContentTypeOptions,
  xFrameOptions,
  crossOriginResourcePolicy,
  crossOriginOpenerPolicy,
  crossOriginEmbedderPolicy,
  mixedContent,
  versionLeaks,
];

/**
 * The security dimension as models include it: Observatory-style scoring (100 plus each check's
 * modifier from the score table, bonuses only from 90 up). A page not served over valid HTTPS
 * cannot score above 20 whatever its headers say.
 */
export const SECURITY_DIMENSION: ModelDimension = {
  id: 'security',
  name: 'Security',
  weight: 1,
  method: 'modifiers',
  // Response headers and cookies: as true of an error page as of any other.
  pageIndependent: true,
  checks: securityChecks.map((c) =>
    c.meta.id === 'https' ? { id: c.meta.id, weight: 1, gate: { cap: 20 } } : { id: c.meta.id, weight: 1 },
  ),
};
