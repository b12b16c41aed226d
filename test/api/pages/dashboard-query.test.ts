import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dashboardSearch, isCalendarDay, parseDashboardQuery } from '../../../api/pages/dashboard-query.ts';

// The B dashboard's address as its state: ranges and filters parsed, bad input named, and the
// links written back in one order.

describe('dashboard query', () => {
  it('reads presets, custom ranges and filters, and writes them back', () => {
    assert.deepEqual(parseDashboardQuery({}), {
      range: { kind: 'preset', days: 30 },
      chosen: false,
      filter: {},
      problems: [],
    });
    const q = parseDashboardQuery({
      range: '90d',
      agent: 'GPTBot',
      page: '/pricing?feed=rss2',
      referrer: '',
    });
    assert.deepEqual(q.range, { kind: 'preset', days: 90 });
    assert.deepEqual(q.filter, { agent: 'GPTBot', page: '/pricing?feed=rss2' });
    assert.equal(dashboardSearch(q.range, q.filter), '?range=90d&agent=GPTBot&page=%2Fpricing%3Ffeed%3Drss2');
    // from/to win over range; a repeated parameter counts once.
    const c = parseDashboardQuery({ range: '7d', from: ['2026-11-01', '2026-01-01'], to: '2026-11-03' });
    assert.deepEqual(c.range, { kind: 'custom', from: '2026-11-01', to: '2026-11-03' });
    assert.equal(c.chosen, true);
    assert.equal(
      dashboardSearch(c.range, { referrer: 'OpenAI' }),
      '?from=2026-11-01&to=2026-11-03&referrer=OpenAI',
    );
  });

  it('names bad input and falls back to 30 days', () => {
    for (const [query, problem] of [
      [{ range: '14d' }, /Range "14d" is not one of 7d, 30d, 90d/],
      [{ from: '2026-13-01', to: '2026-12-01' }, /start date \("2026-13-01"\) is not a date/],
      [{ to: '2026-12-01' }, /start date \("empty"\)/],
      [{ from: '2026-12-02', to: '2026-12-01' }, /after the end date/],
      [{ from: '2025-01-01', to: '2026-12-01' }, /at most 400 days \(2025-01-01 to 2026-12-01 is 700\)/],
      [{ agent: 'x'.repeat(2049) }, /agent filter is longer than 2048/],
    ] as const) {
      const q = parseDashboardQuery(query);
      assert.equal(q.problems.length, 1, JSON.stringify(query));
      assert.match(q.problems[0]!, problem);
      assert.deepEqual(q.range, { kind: 'preset', days: 30 });
    }
    assert.equal(isCalendarDay('2028-02-29'), true);
    assert.equal(isCalendarDay('2026-02-29'), false);
    assert.equal(isCalendarDay('2026-2-01'), false);
  });
});
