import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { agentReadabilityModel } from '../../../../shared/scan-engine/models/agent-readability.ts';
import { alertPayload } from '../../../../shared/watch/alerts.ts';
import { decideThresholdAlerts, type ThresholdInput } from '../../../../shared/watch/rules/thresholds.ts';

// The threshold rules (B registered sites) as a table, with the agent-readability model as their
// parameter: endpoint thresholds, previous scheduled scan, this scan and the endpoint's open alerts
// in; alerts and open alerts out.

const decideBAlerts = (input: ThresholdInput) => decideThresholdAlerts(agentReadabilityModel, input);

const scores = (overall: number, over: Record<string, number> = {}) => ({
  overall,
  dimensions: {
    structure: overall,
    citability: overall,
    discoverability: overall,
    agent_interface: overall,
    transactability: overall,
    ...over,
  },
});
const ok = (overall: number, over: Record<string, number> = {}) => ({
  status: 'ok' as const,
  ...scores(overall, over),
});
const down = { status: 'down' as const, reason: 'connection refused' };

type Row = {
  name: string;
  thresholds: Record<string, number>;
  previous: ReturnType<typeof scores> | null;
  current: ThresholdInput['current'];
  open?: string[];
  alerts: string[]; // type or type:dimension
  openAfter: string[];
};

const table: Row[] = [
  {
    name: 'first scan below the line: no crossing, nothing sent',
    thresholds: { overall: 60 },
    previous: null,
    current: ok(40),
    alerts: [],
    openAfter: [],
  },
  {
    name: 'overall stays above the line',
    thresholds: { overall: 60 },
    previous: scores(80),
    current: ok(61),
    alerts: [],
    openAfter: [],
  },
  {
    name: 'overall crosses downwards: score_drop',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: ok(59),
    alerts: ['score_drop'],
    openAfter: ['overall'],
  },
  {
    name: 'exactly at the line is not below it',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: ok(60),
    alerts: [],
    openAfter: [],
  },
  {
    name: 'still below after alerting: not again',
    thresholds: { overall: 60 },
    previous: scores(50),
    current: ok(45),
    open: ['overall'],
    alerts: [],
    openAfter: ['overall'],
  },
  {
    name: 'back at the line after alerting: recovered',
    thresholds: { overall: 60 },
    previous: scores(50),
    current: ok(60),
    open: ['overall'],
    alerts: ['recovered'],
    openAfter: [],
  },
  {
    name: 'climbs over a line it never alerted on: no recovered',
    thresholds: { overall: 60 },
    previous: scores(50),
    current: ok(70),
    alerts: [],
    openAfter: [],
  },
  {
    name: 'a dimension threshold crosses: dimension_drop for that dimension only',
    thresholds: { citability: 50, structure: 50 },
    previous: scores(70),
    current: ok(70, { citability: 30 }),
    alerts: ['dimension_drop:citability'],
    openAfter: ['citability'],
  },
  {
    name: 'overall and a dimension cross together',
    thresholds: { overall: 60, discoverability: 40 },
    previous: scores(70),
    current: ok(50, { discoverability: 20 }),
    alerts: ['score_drop', 'dimension_drop:discoverability'],
    openAfter: ['discoverability', 'overall'],
  },
  {
    name: 'a dimension without a threshold never alerts',
    thresholds: { overall: 10 },
    previous: scores(90),
    current: ok(80, { transactability: 0 }),
    alerts: [],
    openAfter: [],
  },
  {
    name: 'site down: site_down once',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: down,
    alerts: ['site_down'],
    openAfter: ['down'],
  },
  {
    name: 'still down: nothing more',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: down,
    open: ['down'],
    alerts: [],
    openAfter: ['down'],
  },
  {
    name: 'up again above the line: recovered (reachable)',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: ok(72),
    open: ['down'],
    alerts: ['recovered'],
    openAfter: [],
  },
  {
    name: 'up again but below the line: recovered (reachable) and the drop',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: ok(40),
    open: ['down'],
    alerts: ['recovered', 'score_drop'],
    openAfter: ['overall'],
  },
  {
    name: 'an open alert whose threshold was removed is forgotten',
    thresholds: { overall: 60 },
    previous: scores(70),
    current: ok(70, { citability: 10 }),
    open: ['citability'],
    alerts: [],
    openAfter: [],
  },
];

describe('decideThresholdAlerts', () => {
  for (const row of table) {
    it(row.name, () => {
      const d = decideBAlerts({
        label: 'Docs',
        thresholds: row.thresholds,
        previous: row.previous,
        current: row.current,
        open: row.open ?? [],
      });
      assert.deepEqual(
        d.alerts.map((a) => (a.dimension ? `${a.type}:${a.dimension}` : a.type)),
        row.alerts,
      );
      assert.deepEqual(d.open, row.openAfter);
    });
  }

  it('the payload has exactly the interface.md fields, delta negative on a drop, dimension only on dimension_drop', () => {
    const d = decideBAlerts({
      label: 'Docs',
      thresholds: { overall: 60, citability: 50 },
      previous: scores(72, { citability: 64 }),
      current: ok(55, { citability: 41 }),
      open: [],
    });
    const at = new Date('2026-11-23T03:00:07.000Z');
    const [drop, dim] = d.alerts.map((a) => alertPayload('https://docs.example/', a, at));
    assert.deepEqual(drop, {
      event: 'monitoring.alert',
      site: 'https://docs.example/',
      alert_type: 'score_drop',
      dimension: null,
      previous_score: 72,
      current_score: 55,
      delta: -17,
      message: 'Docs: overall score fell from 72 to 55, below your threshold of 60',
      scanned_at: '2026-11-23T03:00:07.000Z',
    });
    assert.equal(dim!.alert_type, 'dimension_drop');
    assert.equal(dim!.dimension, 'citability');
    assert.equal(dim!.delta, -23);
    const rec = decideBAlerts({
      label: 'Docs',
      thresholds: { citability: 50 },
      previous: scores(55, { citability: 41 }),
      current: ok(70, { citability: 66 }),
      open: ['citability'],
    }).alerts[0]!;
    assert.equal(rec.type, 'recovered');
    assert.equal(rec.dimension, null);
    assert.match(rec.message, /Citability score recovered to 66/);
    assert.equal(rec.delta, 25);
  });
});
