import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import {
  type ArtifactSet,
  FULL_ARTIFACTS,
  QUICK_ARTIFACTS,
} from '../../../../shared/scan-engine/artifacts.ts';
import { allChecks, checksById } from '../../../../shared/scan-engine/checks/index.ts';
import { runChecks, scoreModel } from '../../../../shared/scan-engine/engine.ts';
import { LETTER_GRADES, type ScoringModel } from '../../../../shared/scan-engine/model.ts';
import { models } from '../../../../shared/scan-engine/models/index.ts';
import { siteAuditModel } from '../../../../shared/scan-engine/models/site-audit.ts';

const FIXTURES = path.resolve('test/fixtures/artifacts');
const fixture = (name: string): ArtifactSet =>
  JSON.parse(readFileSync(path.join(FIXTURES, name), 'utf8')) as ArtifactSet;
const score = (artifacts: ArtifactSet, model: ScoringModel = siteAuditModel) =>
  scoreModel(model, runChecks(allChecks, artifacts));
const dim = (s: ReturnType<typeof score>, id: string) => {
  const d = s.dimensions.find((x) => x.id === id);
  assert.ok(d, `dimension ${id}`);
  return d;
};
/** Quick mode: the same scan without the browser's artifacts. */
const quick = (a: ArtifactSet): ArtifactSet => {
  const { Rendered: _r, Lighthouse: _l, ...rest } = a;
  return rest;
};
/** The model with every gate removed, to show what a gate changes. */
const ungated: ScoringModel = {
  ...siteAuditModel,
  dimensions: siteAuditModel.dimensions.map((d) => ({
    ...d,
    checks: d.checks.map(({ gate: _g, ...c }) => c),
  })),
};
const MY_DIMENSIONS = ['seo', 'speed', 'accessibility', 'mobile', 'content', 'conversion'];

describe('site-audit model data', () => {
  it('is registered under its id and versioned', () => {
    assert.equal(models['site-audit'], siteAuditModel);
    assert.equal(siteAuditModel.id, 'site-audit');
    assert.equal(siteAuditModel.version, '1.1.0');
    assert.deepEqual(siteAuditModel.grades, LETTER_GRADES);
  });

  it('has the seven variant A dimensions in order, with their names', () => {
    assert.deepEqual(
      siteAuditModel.dimensions.map((d) => [d.id, d.name]),
      [
        ['seo', 'SEO'],
        ['speed', 'Speed'],
        ['security', 'Security'],
        ['accessibility', 'Accessibility'],
        ['mobile', 'Mobile'],
        ['content', 'Content'],
        ['conversion', 'Conversion'],
      ],
    );
    assert.equal(siteAuditModel.dimensions.find((d) => d.id === 'security')?.method, 'modifiers');
  });

  it('references only registered checks, each once', () => {
    const refs = siteAuditModel.dimensions.flatMap((d) => d.checks.map((c) => c.id));
    for (const id of refs) assert.ok(checksById.has(id), `unknown check ${id}`);
    assert.equal(new Set(refs).size, refs.length, 'a check is used in two dimensions');
  });

  it('has positive weights, dimension weights summing to 100', () => {
    for (const d of siteAuditModel.dimensions) {
      assert.ok(d.weight > 0, d.id);
      for (const c of d.checks) assert.ok(c.weight > 0, `${d.id}/${c.id}`);
    }
    assert.equal(
      siteAuditModel.dimensions.reduce((s, d) => s + d.weight, 0),
      100,
    );
  });

  it('check ids are unique across the whole registry', () => {
    const ids = allChecks.map((c) => c.meta.id);
    const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
    assert.deepEqual(dupes, []);
  });

  it('every check file of our folders is registered, named after its id and used by the model', () => {
    const used = new Set(siteAuditModel.dimensions.flatMap((d) => d.checks.map((c) => c.id)));
    for (const dimension of MY_DIMENSIONS) {
      const dir = path.resolve('shared/scan-engine/checks', dimension);
      const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
      const modelIds =
        siteAuditModel.dimensions.find((d) => d.id === dimension)?.checks.map((c) => c.id) ?? [];
      assert.deepEqual(files.map((f) => f.replace(/\.ts$/, '')).sort(), [...modelIds].sort(), dimension);
      for (const id of modelIds) assert.ok(used.has(id) && checksById.get(id)?.meta.id === id);
    }
  });

  it('every dimension keeps quick-mode checks, and browser checks declare what they need', () => {
    for (const d of siteAuditModel.dimensions) {
      const quickChecks = d.checks.filter((c) =>
        checksById.get(c.id)?.meta.requiredArtifacts.every((a) => QUICK_ARTIFACTS.includes(a)),
      );
      assert.ok(quickChecks.length > 0, `${d.id} has no quick-mode check`);
    }
    for (const c of allChecks) {
      for (const a of c.meta.requiredArtifacts)
        assert.ok(FULL_ARTIFACTS.includes(a), `${c.meta.id} needs ${a}`);
    }
  });
});

describe('site-audit scores', () => {
  const good = fixture('bakery-full.json');
  const poor = fixture('neglected-quick.json');

  it('a well-made site scores A in every dimension, in full and in quick mode', () => {
    for (const artifacts of [good, quick(good)]) {
      const s = score(artifacts);
      assert.equal(s.grade, 'A', JSON.stringify(s.dimensions.map((d) => [d.id, d.score])));
      for (const d of s.dimensions)
        assert.ok((d.score ?? 0) >= 90, `${d.id} ${d.score}: ${d.issues.join('; ')}`);
    }
  });

  it('a neglected site fails overall and in every dimension', () => {
    const s = score(poor);
    assert.equal(s.grade, 'F');
    for (const d of s.dimensions) assert.ok((d.score ?? 100) < 50, `${d.id} ${d.score}`);
  });

  it('quick mode scores every dimension and leaves browser checks not applicable', () => {
    const s = score(quick(good));
    for (const d of s.dimensions) {
      assert.notEqual(d.score, null, d.id);
      for (const c of d.checks) {
        const needsBrowser = checksById
          .get(c.id)
          ?.meta.requiredArtifacts.some((a) => a === 'Rendered' || a === 'Lighthouse');
        if (needsBrowser) assert.equal(c.outcome, 'not_applicable', c.id);
      }
    }
  });

  it('issues and passes carry the checks’ messages', () => {
    const seo = dim(score(poor), 'seo');
    assert.ok(seo.issues.includes('Meta description is missing'));
    assert.ok(dim(score(good), 'conversion').passes.some((p) => p.includes('"Order bread"')));
  });

  it('full-mode measurements move the score: a slow render lowers speed', () => {
    const slow: ArtifactSet = {
      ...good,
      Lighthouse: {
        lighthouseVersion: '12.8.2',
        categories: { performance: 0.3 },
        audits: Object.fromEntries(
          [
            ['first-contentful-paint', 4500],
            ['largest-contentful-paint', 9000],
            ['total-blocking-time', 1500],
            ['cumulative-layout-shift', 0.4],
            ['speed-index', 9000],
          ].map(([id, v]) => [
            id,
            { score: null, numericValue: v as number, title: String(id), scoreDisplayMode: 'numeric' },
          ]),
        ),
      },
    };
    assert.ok((dim(score(slow), 'speed').score ?? 100) < 60);
    assert.ok((dim(score(good), 'speed').score ?? 0) >= 90);
  });
});

describe('site-audit gates', () => {
  const good = fixture('bakery-full.json');
  const page = good.Page as Exclude<ArtifactSet['Page'], undefined | { error: unknown }>;

  it('a noindex page cannot score above 40 for SEO', () => {
    const noindex: ArtifactSet = {
      ...good,
      Page: { ...page, headers: { ...page.headers, 'x-robots-tag': 'noindex' } },
    };
    assert.ok((dim(score(noindex, ungated), 'seo').score ?? 0) > 40, 'the gate must be what caps it');
    assert.equal(dim(score(noindex), 'seo').score, 40);
  });

  it('an error page cannot score above 20 for SEO', () => {
    const notFound: ArtifactSet = { ...good, Page: { ...page, status: 404 } };
    assert.ok((dim(score(notFound, ungated), 'seo').score ?? 0) > 20);
    assert.equal(dim(score(notFound), 'seo').score, 20);
  });

  it('a page without a viewport cannot score above 50 for mobile', () => {
    const noViewport: ArtifactSet = {
      ...good,
      Page: { ...page, html: page.html.replace(/<meta name="viewport"[^>]*>/, '') },
    };
    assert.ok((dim(score(noViewport, ungated), 'mobile').score ?? 0) > 50);
    assert.equal(dim(score(noViewport), 'mobile').score, 50);
  });

  it('a passing gate changes nothing', () => {
    assert.deepEqual(
      score(good).dimensions.map((d) => d.score),
      score(good, ungated).dimensions.map((d) => d.score),
    );
  });
});
