import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { competitorStanding } from '../../../../shared/monitoring/standing.ts';
import { monitoringModel } from '../../../../shared/scan-engine/models/monitoring.ts';
import { alertPayload } from '../../../../shared/watch/alerts.ts';
import { decidePointDrops, type PointDropInput } from '../../../../shared/watch/rules/point-drops.ts';

// The point-drop rules (A monitoring) as a table, with the monitoring model as their parameter:
// scan history and open incident in, alerts and incident out.

const decideAlerts = (input: PointDropInput) =>
  decidePointDrops({ model: monitoringModel, skip: ['competitor'] }, input);

const dims = (v: number, over: Record<string, number> = {}) => ({
  seo: v,
  speed: v,
  copy: v,
  social: v,
  local: v,
  ai: v,
  ...over,
});
const ok = (overall: number, d = dims(overall)) => ({ status: 'ok' as const, overall, dimensions: d });
const site = (incidentBaseline: number | null = null, alertThreshold = 10) => ({
  label: 'Shop',
  alertThreshold,
  incidentBaseline,
});
const types = (input: PointDropInput) =>
  decideAlerts(input).alerts.map((a) => (a.dimension ? `${a.type}:${a.dimension}` : a.type));

describe('decidePointDrops', () => {
  it('raises nothing on a first healthy scan or a drop within the threshold', () => {
    assert.deepEqual(types({ site: site(), previous: null, lastOk: null, current: ok(80) }), []);
    const small = {
      site: site(),
      previous: { status: 'ok' as const, overall: 80 },
      lastOk: ok(80),
      current: ok(70),
    };
    assert.deepEqual(types(small), [], 'a drop of exactly the threshold is not more than it');
    assert.equal(decideAlerts(small).incidentBaseline, null);
  });

  it('score_drop past the threshold, with the drop as a negative delta, and opens an incident', () => {
    const d = decideAlerts({
      site: site(),
      previous: { status: 'ok', overall: 80 },
      lastOk: ok(80),
      current: ok(69, dims(80)),
    });
    assert.deepEqual(
      d.alerts.map((a) => [a.type, a.dimension, a.previousScore, a.currentScore, a.delta]),
      [['score_drop', null, 80, 69, -11]],
    );
    assert.match(d.alerts[0]!.message, /Shop: overall score fell from 80 to 69 \(-11\)/);
    assert.equal(d.incidentBaseline, 80);
  });

  it('compares no scores of another model version: no drop, and a down site still alerts', () => {
    const input = { site: site(), previous: { status: 'ok' as const, overall: 90 }, lastOk: ok(90) };
    assert.deepEqual(types({ ...input, current: ok(40), comparable: false }), []);
    assert.deepEqual(types({ ...input, current: ok(40), comparable: true }).slice(0, 1), ['score_drop']);
    assert.deepEqual(types({ ...input, current: { status: 'down', reason: 'refused' }, comparable: false }), [
      'site_down',
    ]);
  });

  it('respects each site’s own threshold', () => {
    const input = { previous: { status: 'ok' as const, overall: 90 }, lastOk: ok(90), current: ok(70) };
    assert.deepEqual(types({ ...input, site: site(null, 25) }), []);
    assert.deepEqual(types({ ...input, site: site(null, 5) }), [
      'score_drop',
      'dimension_drop:seo',
      'dimension_drop:speed',
      'dimension_drop:copy',
      'dimension_drop:social',
      'dimension_drop:local',
      'dimension_drop:ai',
    ]);
  });

  it('dimension_drop names each dimension that fell past the threshold, never the competitor standing', () => {
    const before = ok(80, dims(80, { competitor: 100 }));
    const after = ok(76, dims(80, { seo: 50, ai: 69, competitor: 0 }));
    const d = decideAlerts({
      site: site(),
      previous: { status: 'ok', overall: 80 },
      lastOk: before,
      current: after,
    });
    assert.deepEqual(
      d.alerts.map((a) => [a.type, a.dimension, a.delta]),
      [
        ['dimension_drop', 'seo', -30],
        ['dimension_drop', 'ai', -11],
      ],
    );
    assert.match(d.alerts[0]!.message, /SEO score fell from 80 to 50/);
    assert.equal(d.incidentBaseline, null, 'a dimension drop alone opens no incident');
  });

  it('recovered once the overall is back within the threshold of the score before the incident', () => {
    const still = {
      site: site(80),
      previous: { status: 'ok' as const, overall: 60 },
      lastOk: ok(60),
      current: ok(69),
    };
    assert.deepEqual(types(still), []);
    assert.equal(decideAlerts(still).incidentBaseline, 80, 'still open');
    const back = decideAlerts({ ...still, current: ok(70) });
    assert.deepEqual(
      back.alerts.map((a) => [a.type, a.previousScore, a.currentScore, a.delta]),
      [['recovered', 60, 70, 10]],
    );
    assert.equal(back.incidentBaseline, null);
  });

  it('a further drop during an incident alerts again and keeps the first baseline', () => {
    const d = decideAlerts({
      site: site(80),
      previous: { status: 'ok', overall: 60 },
      lastOk: ok(60),
      current: ok(45),
    });
    assert.deepEqual(
      d.alerts.map((a) => a.type),
      [
        'score_drop',
        'dimension_drop',
        'dimension_drop',
        'dimension_drop',
        'dimension_drop',
        'dimension_drop',
        'dimension_drop',
      ],
    );
    assert.equal(d.incidentBaseline, 80);
  });

  it('site_down once when the page cannot be fetched; nothing more while it stays down', () => {
    const down = { status: 'down' as const, reason: 'ECONNREFUSED' };
    const first = decideAlerts({
      site: site(),
      previous: { status: 'ok', overall: 85 },
      lastOk: ok(85),
      current: down,
    });
    assert.deepEqual(
      first.alerts.map((a) => [a.type, a.dimension, a.previousScore, a.currentScore, a.delta]),
      [['site_down', null, 85, 0, -85]],
    );
    assert.match(first.alerts[0]!.message, /Shop could not be fetched: ECONNREFUSED/);
    assert.equal(first.incidentBaseline, 85);
    const again = decideAlerts({
      site: site(85),
      previous: { status: 'down', overall: 0 },
      lastOk: ok(85),
      current: down,
    });
    assert.deepEqual(again.alerts, []);
    assert.equal(again.incidentBaseline, 85);
    const never = decideAlerts({ site: site(), previous: null, lastOk: null, current: down });
    assert.deepEqual(
      never.alerts.map((a) => [a.type, a.previousScore]),
      [['site_down', 0]],
    );
  });

  it('back up after being down: recovered when the score is near the old one, score_drop when it is not', () => {
    const base = { site: site(85), previous: { status: 'down' as const, overall: 0 }, lastOk: ok(85) };
    const fine = decideAlerts({ ...base, current: ok(83) });
    assert.deepEqual(
      fine.alerts.map((a) => [a.type, a.previousScore, a.currentScore]),
      [['recovered', 0, 83]],
    );
    assert.match(fine.alerts[0]!.message, /reachable again/);
    assert.equal(fine.incidentBaseline, null);
    const worse = decideAlerts({ ...base, current: ok(50, dims(80, { copy: 20 })) });
    assert.deepEqual(
      worse.alerts.map((a) => (a.dimension ? `${a.type}:${a.dimension}` : a.type)),
      ['score_drop', 'dimension_drop:copy'],
    );
    assert.equal(worse.incidentBaseline, 85);
  });
});

describe('alertPayload', () => {
  it('has exactly the fields of interface.md section 6', () => {
    const [a] = decideAlerts({
      site: site(),
      previous: { status: 'ok', overall: 90 },
      lastOk: ok(90, dims(90)),
      current: ok(70, dims(90)),
    }).alerts;
    const p = alertPayload('https://shop.example/', a!, new Date('2026-03-01T12:00:00Z'));
    assert.deepEqual(p, {
      event: 'monitoring.alert',
      site: 'https://shop.example/',
      alert_type: 'score_drop',
      dimension: null,
      previous_score: 90,
      current_score: 70,
      delta: -20,
      message: a!.message,
      scanned_at: '2026-03-01T12:00:00.000Z',
    });
  });
});

describe('competitorStanding', () => {
  it('is the share of competitors the site is ahead of (ties half), or null without any', () => {
    assert.equal(competitorStanding(80, []), null);
    assert.equal(competitorStanding(80, [70, 60]), 100);
    assert.equal(competitorStanding(50, [70, 60]), 0);
    assert.equal(competitorStanding(65, [70, 60]), 50);
    assert.equal(competitorStanding(70, [70, 60, 90]), 50);
  });
});
