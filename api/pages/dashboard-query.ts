import type { TrafficFilter } from '../../shared/agent-traffic/traffic-filter.ts';

// The B dashboard's address is its state (no JavaScript needed): the date range
// (`?range=7d|30d|90d`, or `?from=YYYY-MM-DD&to=YYYY-MM-DD`, UTC days, both included) and the
// click-to-filter chips (`?agent=GPTBot&page=/pricing&referrer=ChatGPT`). Bad input is named in
// `problems` and the default range (30 days) is shown instead.

export const PRESET_DAYS = [7, 30, 90] as const;
export type PresetDays = (typeof PRESET_DAYS)[number];
/** The longest custom range: raw events (what a filtered range reads) are kept 400 days. */
export const MAX_CUSTOM_DAYS = 400;
const FILTER_MAX = 2048;

export type DashboardRange =
  | { kind: 'preset'; days: PresetDays }
  | { kind: 'custom'; from: string; to: string };

export interface DashboardQuery {
  range: DashboardRange;
  /** The range came from the address (not the default): the chart's axis spans it. */
  chosen: boolean;
  filter: TrafficFilter;
  problems: string[];
}

export const FILTER_KEYS = ['agent', 'page', 'referrer'] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];

const DEFAULT_RANGE: DashboardRange = { kind: 'preset', days: 30 };
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)?.trim() ?? '';

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isCalendarDay(s: string): boolean {
  if (!ISO_DAY.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const daysBetween = (from: string, to: string) => (Date.parse(to) - Date.parse(from)) / 86400_000 + 1;

function parseRange(
  q: Record<string, string | string[] | undefined>,
  problems: string[],
): DashboardRange | null {
  const range = one(q.range);
  const from = one(q.from);
  const to = one(q.to);
  if (from || to) {
    const bad = [
      !isCalendarDay(from) && `the start date ("${from || 'empty'}") is not a date like 2026-11-01`,
      !isCalendarDay(to) && `the end date ("${to || 'empty'}") is not a date like 2026-11-28`,
    ].filter((x): x is string => Boolean(x));
    if (bad.length) {
      problems.push(`Custom range: ${bad.join('; ')}.`);
      return null;
    }
    if (from > to) {
      problems.push(`Custom range: the start date (${from}) is after the end date (${to}).`);
      return null;
    }
    if (daysBetween(from, to) > MAX_CUSTOM_DAYS) {
      problems.push(
        `Custom range: at most ${MAX_CUSTOM_DAYS} days (${from} to ${to} is ${daysBetween(from, to)}).`,
      );
      return null;
    }
    return { kind: 'custom', from, to };
  }
  if (!range) return null;
  const days = Number(/^(\d+)d$/.exec(range)?.[1]);
  if ((PRESET_DAYS as readonly number[]).includes(days)) return { kind: 'preset', days: days as PresetDays };
  problems.push(`Range "${range}" is not one of ${PRESET_DAYS.map((d) => `${d}d`).join(', ')}.`);
  return null;
}

function parseFilter(q: Record<string, string | string[] | undefined>, problems: string[]): TrafficFilter {
  const filter: TrafficFilter = {};
  for (const key of FILTER_KEYS) {
    const v = one(q[key]);
    if (!v) continue;
    if (v.length > FILTER_MAX) problems.push(`The ${key} filter is longer than ${FILTER_MAX} characters.`);
    else filter[key] = v;
  }
  return filter;
}

/** The dashboard's state from its query string; problems for anything that does not parse. */
export function parseDashboardQuery(q: Record<string, string | string[] | undefined>): DashboardQuery {
  const problems: string[] = [];
  const range = parseRange(q, problems);
  const filter = parseFilter(q, problems);
  return { range: range ?? DEFAULT_RANGE, chosen: range !== null, filter, problems };
}

/** The query string of a dashboard state (range first, then the filters), with a leading `?`. */
export function dashboardSearch(range: DashboardRange, filter: TrafficFilter): string {
  const p = new URLSearchParams();
  if (range.kind === 'custom') {
    p.set('from', range.from);
    p.set('to', range.to);
  } else p.set('range', `${range.days}d`);
  for (const key of FILTER_KEYS) if (filter[key]) p.set(key, filter[key]!);
  return `?${p.toString()}`;
}
