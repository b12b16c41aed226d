// Response headers that only tell an attacker what runs the site, after the OWASP Secure
// Headers Project's list of headers to remove (headers_remove.json, 2024-07-19), in two groups.

/** Headers that name server software, frameworks or CMSs, often with a version. */
export const SOFTWARE_HEADERS = new Set([
  'server',
  'x-powered-by',
  'powered-by',
  'product',
  'x-aspnet-version',
  'x-aspnetmvc-version',
  'x-php-version',
  'x-generator',
  'x-generated-by',
  'x-cms',
  'x-powered-cms',
  'x-framework',
  'x-cf-powered-by',
  'x-powered-by-plesk',
  'x-server-powered-by',
  'x-turbo-charged-by',
  'x-content-encoded-by',
  'x-redirect-by',
  'x-mod-pagespeed',
  'x-page-speed',
  'x-owa-version',
  'x-umbraco-version',
  'x-cocoon-version',
  'x-jitsi-release',
  'liferay-portal',
  'oraclecommercecloud-version',
]);

/** Headers whose name alone says the value is a version number. */
export const VERSION_HEADERS = new Set([
  'x-aspnet-version',
  'x-aspnetmvc-version',
  'x-php-version',
  'x-owa-version',
  'x-umbraco-version',
  'x-cocoon-version',
  'oraclecommercecloud-version',
]);

/** Debugging, tracing and internal-topology headers (source maps, back-end names, agent ids). */
export const INTERNAL_HEADER_PATTERNS: RegExp[] = [
  /^(x-)?sourcemap$/,
  /^x-sourcefiles$/,
  /^x-diaginfo$/,
  /^x-(be|fe)server$/,
  /^x-calculatedbetarget$/,
  /^host-header$/,
  /^k-proxy-request$/,
  /^pega-host$/,
  /^x-varnish-(backend|server)$/,
  /^x-envoy-(attempt-count|external-address|internal|original-dst-host|upstream-service-time)$/,
  /^x-b3-(parentspanid|sampled|spanid|traceid)$/,
  /^x-atmosphere-(error|first-request|tracking-id)$/,
  /^x-kubernetes-pf-(flowschema-ui|prioritylevel-uid)$/,
  /^x-litespeed-(cache|purge|tag|vary|cache-control)$/,
  /^x-nextjs-(cache|matched-path|page|redirect)$/,
  /^x-old-content-length$/,
  /^x-oneagent-js-injection$/,
  /^x-dt(agentid|healthcheck|injectedservlet)$/,
  /^x-ruxit-js-agent$/,
  /^\$wsep$/,
];

// "nginx/1.18.0", "PHP/8.1", "Drupal 10", "WordPress 6.4.2"; not node ids such as "dcb/7F84".
const VERSION = /[A-Za-z]\/v?\d+(\.\d+)*(?=$|[\s;,()])|[A-Za-z][ \t]+v?\d+(\.\d+)*(?=$|[\s;,()])|\b\d+\.\d+/;

export function mentionsVersion(value: string): boolean {
  return VERSION.test(value);
}
