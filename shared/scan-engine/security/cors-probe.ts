/**
 * The Origin the Page gatherer sends with its request. A server that echoes it back in
 * Access-Control-Allow-Origin together with Access-Control-Allow-Credentials: true lets every
 * site read authenticated responses; Observatory probes the same way.
 */
export const CORS_PROBE_ORIGIN = 'https://cors-probe.sightline.invalid';
