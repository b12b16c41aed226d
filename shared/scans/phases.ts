import type { ScanStatus } from '../db/tables/scans.ts';

/**
 * The phases a scan reports, in the order they are named when several run at once (joined with
 * `+`, e.g. `fetch+render+lighthouse`). The worker writes them to `scans.phase`, the API returns
 * them as `phase`, the CLI prints them, and the scan page turns them into words with phaseLabel.
 */
export const SCAN_PHASES = ['fetch', 'render', 'lighthouse', 'score'] as const;
export type ScanPhase = (typeof SCAN_PHASES)[number];

/** Written by the scan job when it claims the scan, before the first gatherer starts. */
export const STARTING_PHASE = 'starting';

const DOING: Record<ScanPhase, string> = {
  fetch: 'fetching the page and its files',
  render: 'rendering it in a browser',
  lighthouse: 'running Lighthouse',
  score: 'scoring the results',
};

const isPhase = (p: string): p is ScanPhase => (SCAN_PHASES as readonly string[]).includes(p);

/** What a person reads while a scan is pending: "Fetching the page and its files, running Lighthouse". */
export function phaseLabel(status: ScanStatus, phase: string | null): string {
  if (status === 'queued') return 'Waiting for a free worker';
  if (phase === STARTING_PHASE) return 'Starting';
  const parts = (phase ?? '').split('+').filter(isPhase);
  if (parts.length === 0) return 'Scanning';
  const text = parts.map((p) => DOING[p]).join(', ');
  return text[0]!.toUpperCase() + text.slice(1);
}

/** "8 s", "1 min 05 s": the time so far, as the progress page shows it. */
export function elapsedLabel(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}
