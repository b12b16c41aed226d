import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { measureB } from '../../../shared/b-sites/watch-kind.ts';
import { agentReadabilityModel } from '../../../shared/scan-engine/models/agent-readability.ts';
import type { ScanOutcome } from '../../../shared/scans/gather-and-score.ts';
import { decideThresholdAlerts } from '../../../shared/watch/rules/thresholds.ts';

// What a weekly scan of a registered B site measures from the scan engine's outcome.

const scores = (overall: number, dimensions: Record<string, number>) => ({ overall, dimensions });

describe('measureB', () => {
  // What the scan engine returns for a page that answers 404: the error page is graded 0 overall
  // and its content dimensions are not computed (score null).
  const errorPage = (status: number): ScanOutcome =>
    ({
      artifacts: { Page: { status, url: 'https://docs.example/gone', html: '', headers: {} } },
      results: {
        [agentReadabilityModel.id]: {
          modelId: agentReadabilityModel.id,
          modelVersion: agentReadabilityModel.version,
          overallScore: 0,
          grade: 'F',
          pageKind: 'error_status',
          dimensions: agentReadabilityModel.dimensions.map((d) => ({
            id: d.id,
            name: d.name,
            weight: d.weight,
            score: null,
            notComputed: 'error_status',
            issues: [],
            passes: [],
            checks: [],
          })),
        },
      },
    }) as unknown as ScanOutcome;

  it('an unscored dimension is absent, not 0, and raises no dimension_drop', () => {
    const measured = measureB(errorPage(404));
    assert.equal(measured.status, 'ok');
    if (measured.status !== 'ok') return;
    assert.deepEqual(measured.dimensions, {});
    const d = decideThresholdAlerts(agentReadabilityModel, {
      label: 'Docs',
      thresholds: { structure: 60, citability: 60 },
      previous: scores(70, { structure: 70, citability: 70 }),
      current: measured,
      open: [],
    });
    assert.deepEqual(d.alerts, []);
    assert.deepEqual(d.open, []);
  });

  it('a server error is down, whatever the model says', () => {
    assert.equal(measureB(errorPage(503)).status, 'down');
  });
});
