import type { ResourceEntry } from '../../../artifacts.ts';
import { logNormalScore } from '../../../curves.ts';

// Quick-mode speed checks cannot time a browser, so they estimate what a problem costs on the
// network Lighthouse simulates for mobile ("slow 4G": 150 ms RTT, 1.6 Mbps; lantern's
// simulation/Constants.js) and score that cost with Lighthouse's byte-efficiency curve.

export const SLOW_4G = { rttMs: 150, throughputKbps: 1.6 * 1024 };

/** Milliseconds to download this many bytes at the simulated throughput. */
export function transferMs(bytes: number): number {
  return ((bytes * 8) / (SLOW_4G.throughputKbps * 1024)) * 1000;
}

/** A log-normal curve score rounded to two decimals, as Lighthouse reports audit scores. */
export function curveScore(curve: { p10: number; median: number }, value: number): number {
  return Math.round(logNormalScore(curve, value) * 100) / 100;
}

/** Lighthouse's score for time wasted by an opportunity (byte-efficiency-audit.js, WASTED_MS_P10/MEDIAN). */
const WASTED_MS_CURVE = { p10: 150, median: 935 };
export const scoreWastedMs = (ms: number) => curveScore(WASTED_MS_CURVE, ms);

export const kib = (bytes: number) => `${Math.round(bytes / 1024).toLocaleString('en')} KiB`;
export const seconds = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

/** Entries that were fetched and have a size. */
export function fetched(entries: ResourceEntry[]): (ResourceEntry & { bytes: number })[] {
  return entries.filter(
    (e): e is ResourceEntry & { bytes: number } =>
      e.bytes !== null && e.status !== null && e.status >= 200 && e.status < 300,
  );
}

/** Origin of a URL (the URL itself when it does not parse, so it still counts once). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** Short label of a resource URL for messages: its last path segment. */
export function shortName(url: string): string {
  try {
    const u = new URL(url);
    return u.pathname.split('/').filter(Boolean).pop() ?? u.hostname;
  } catch {
    return url;
  }
}
