import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { GEO_MAX_SCORE } from '../../../../shared/geo-scoring/models/geo.ts';
import type { ArtifactSet } from '../../../../shared/scan-engine/artifacts.ts';
import { checksById } from '../../../../shared/scan-engine/checks/index.ts';
import { LETTER_GRADES } from '../../../../shared/scan-engine/model.ts';
import { models } from '../../../../shared/scan-engine/models/index.ts';
import { MONITOR_DIMENSIONS, monitoringModel } from '../../../../shared/scan-engine/models/monitoring.ts';
import { siteAuditModel } from '../../../../shared/scan-engine/models/site-audit.ts';
import { scoreArtifacts } from '../../../../shared/scan-engine/score.ts';

const fixture = (name: string): ArtifactSet =>
  JSON.parse(readFileSync(path.resolve('test/fixtures/artifacts', name), 'utf8')) as ArtifactSet;
const quick = (a: ArtifactSet): ArtifactSet => {
  const { Rendered: _r, Lighthouse: _l, ...rest } = a;
  return rest;
};
const score = (a: ArtifactSet) => scoreArtifacts(a, ['monitoring']).monitoring!;
const dim = (s: ReturnType<typeof score>, id: string) => s.dimensions.find((d) => d.id === id)!.score;

describe('monitoring model data', () => {
  it('is registered, versioned and has the seven dimensions of decisions.md in order', () => {
    assert.equal(models.monitoring, monitoringModel);
    assert.equal(monitoringModel.version, '1.1.0');
    assert.deepEqual(monitoringModel.grades, LETTER_GRADES);
    assert.deepEqual(
      monitoringModel.dimensions.map((d) => d.id),
      ['seo', 'speed', 'copy', 'social', 'local', 'competitor', 'ai'],
    );
    assert.deepEqual(
      [...MONITOR_DIMENSIONS],
      monitoringModel.dimensions.map((d) => d.id),
    );
  });

  it('references only registered checks, and its weights sum to 100 with competitor at 0', () => {
    for (const d of monitoringModel.dimensions)
      for (const c of d.checks) assert.ok(checksById.has(c.id), `${d.id}: ${c.id}`);
    assert.equal(
      monitoringModel.dimensions.reduce((s, d) => s + d.weight, 0),
      100,
    );
    const competitor = monitoringModel.dimensions.find((d) => d.id === 'competitor')!;
    assert.equal(competitor.weight, 0);
    assert.deepEqual(competitor.checks, []);
  });

  it('shares SEO and speed with the site audit, and builds ai from the GEO signals without their gates', () => {
    for (const id of ['seo', 'speed']) {
      assert.deepEqual(
        monitoringModel.dimensions.find((d) => d.id === id)!.checks,
        siteAuditModel.dimensions.find((d) => d.id === id)!.checks,
      );
    }
    const ai = monitoringModel.dimensions.find((d) => d.id === 'ai')!;
    assert.ok(ai.checks.every((c) => c.gate === undefined));
    assert.ok(Math.abs(ai.checks.reduce((s, c) => s + c.weight, 0) - GEO_MAX_SCORE) < 1e-9);
  });
});

describe('monitoring model on fixture sites', () => {
  const bakery = score(quick(fixture('bakery-full.json')));
  const neglected = score(fixture('neglected-quick.json'));

  it('scores every measured dimension in quick mode and leaves competitor to the monitor', () => {
    for (const s of [bakery, neglected]) {
      for (const id of ['seo', 'speed', 'copy', 'social', 'local', 'ai'])
        assert.equal(typeof dim(s, id), 'number', id);
      assert.equal(dim(s, 'competitor'), null);
    }
  });

  it('the overall is the weighted mean of the six measured dimensions', () => {
    const measured = monitoringModel.dimensions.filter((d) => d.weight > 0);
    const mean =
      measured.reduce((s, d) => s + d.weight * (dim(bakery, d.id) ?? 0), 0) /
      measured.reduce((s, d) => s + d.weight, 0);
    assert.equal(bakery.overallScore, Math.round(mean));
  });

  it('ranks the maintained local bakery above the neglected shop, most of all on local search', () => {
    assert.ok(
      bakery.overallScore > neglected.overallScore + 15,
      `${bakery.overallScore} vs ${neglected.overallScore}`,
    );
    assert.ok(dim(bakery, 'local')! >= 60, `bakery local ${dim(bakery, 'local')}`);
    assert.ok(dim(neglected, 'local')! <= 30, `neglected local ${dim(neglected, 'local')}`);
    assert.ok(dim(bakery, 'copy')! > dim(neglected, 'copy')!);
    assert.ok(dim(bakery, 'social')! > dim(neglected, 'social')!);
  });
});
