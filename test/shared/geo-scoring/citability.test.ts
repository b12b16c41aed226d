import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { scoreCitability } from '../../../shared/geo-scoring/citability.ts';
import { citabilityModel } from '../../../shared/geo-scoring/models/citability.ts';
import type { PageArtifact } from '../../../shared/scan-engine/artifacts.ts';
import { checksById } from '../../../shared/scan-engine/checks/index.ts';
import { runCheck } from '../../../shared/scan-engine/engine.ts';

const URL_ = 'https://example.com/guide';

function page(body: string, head = ''): PageArtifact {
  const html = `<!doctype html><html lang="en"><head><title>Guide</title>${head}</head><body>${body}</body></html>`;
  return {
    requestedUrl: URL_,
    finalUrl: URL_,
    redirectChain: [],
    status: 200,
    headers: {},
    setCookies: [],
    tls: null,
    contentType: 'text/html',
    html,
    truncated: false,
    timings: { ttfbMs: 40, totalMs: 80 },
    bytes: { transferred: html.length, decoded: html.length },
    contentEncoding: null,
    httpRedirectsToHttps: null,
  };
}

// 50 words, direct, with figures.
const ANSWER =
  'Solar panels pay for themselves in about 9 years in southern England, where a 4 kWp system costing £6,500 produces 3,600 kWh a year. At a 28p tariff and 50% self-use that saves £500 annually, plus £150 from export payments at 15p per kWh in 2024.';
// 55 words of detail per paragraph, with a figure.
const DETAIL =
  'Northern homes see longer paybacks because output drops by around 20% between Cornwall and Aberdeen. Battery storage raises self-use to 80% but adds £4,000, which stretches the payback to 12 years unless the household runs an electric car or heat pump that soaks up midday generation during the summer months each year.';

const section = (q: string) => `<h2>${q}</h2><p>${ANSWER}</p><p>${DETAIL}</p><ul><li>Cost: £6,500</li></ul>`;

const STRONG = page(
  `<main><article><h1>How long do solar panels take to pay back?</h1>
  ${section('How long is the payback in the south?')}
  ${section('What changes the payback in the north?')}
  ${section('Does a battery shorten the payback?')}
  <blockquote>"Self-use is the biggest lever," said Priya Shah of the Solar Trade Association.</blockquote>
  <p>We surveyed 412 owners in 2024 and found the median payback was 9.4 years. Figures come from <a href="https://www.gov.uk/solar">GOV.UK</a> and <a href="https://www.ofgem.gov.uk/seg">Ofgem</a>, both checked in May 2024 for every region we list.</p>
  </article></main>`,
  '<meta name="author" content="Priya Shah"><meta property="article:published_time" content="2024-05-02">',
);

const WEAK = page(
  `<div><p>Welcome to our blog! In this article we will talk about solar. This is something that many people wonder about, and it is really interesting. It depends on a lot of things, as mentioned above, and there are many factors that can change it for everybody who is thinking about it in general and in particular situations that people find themselves in when they consider all of the different options that exist today in the market and beyond the market in other places too, which we will discuss further below in the rest of this long post that keeps going on without saying anything specific at all or giving any numbers that readers could use to decide anything.</p>
  <p>It is also worth thinking about. They say it is good.</p></div>`,
);

describe('citability checks', () => {
  const cases: { check: string; artifacts: PageArtifact; outcome: string }[] = [
    { check: 'citability-answer-blocks', artifacts: STRONG, outcome: 'pass' },
    { check: 'citability-answer-blocks', artifacts: WEAK, outcome: 'fail' },
    { check: 'citability-self-containment', artifacts: STRONG, outcome: 'pass' },
    { check: 'citability-self-containment', artifacts: WEAK, outcome: 'fail' },
    { check: 'citability-structure', artifacts: STRONG, outcome: 'pass' },
    { check: 'citability-structure', artifacts: WEAK, outcome: 'fail' },
    { check: 'citability-statistics', artifacts: STRONG, outcome: 'pass' },
    { check: 'citability-statistics', artifacts: WEAK, outcome: 'fail' },
    { check: 'citability-uniqueness', artifacts: STRONG, outcome: 'pass' },
    { check: 'citability-uniqueness', artifacts: WEAK, outcome: 'fail' },
  ];
  for (const c of cases) {
    it(`${c.check}: ${c.artifacts === STRONG ? 'strong' : 'weak'} page -> ${c.outcome}`, () => {
      const check = checksById.get(c.check);
      assert.ok(check);
      const r = runCheck(check, { Page: c.artifacts });
      assert.equal(r.outcome, c.outcome, r.message);
    });
  }

  it('answer blocks: an overlong or indirect opening scores below a direct 40-60 word one', () => {
    const check = checksById.get('citability-answer-blocks');
    assert.ok(check);
    const score = (lead: string) => runCheck(check, { Page: page(`<h2>Q?</h2><p>${lead}</p>`) }).score;
    const direct = score(ANSWER);
    const indirect = score(`In this article we look at it. ${ANSWER}`);
    const overlong = score(`${ANSWER} ${DETAIL} ${DETAIL} ${DETAIL}`);
    assert.ok(direct > indirect, `${direct} > ${indirect}`);
    assert.ok(direct > overlong, `${direct} > ${overlong}`);
  });

  it('statistics: more figures per 100 words score higher', () => {
    const check = checksById.get('citability-statistics');
    assert.ok(check);
    const plain = 'Panels work well on most roofs and most owners are happy with them after installation. ';
    const low = runCheck(check, { Page: page(`<p>${plain.repeat(6)} A system costs £6,500.</p>`) }).score;
    const high = runCheck(check, { Page: page(`<p>${ANSWER} ${DETAIL}</p>`) }).score;
    assert.ok(high > low, `${high} > ${low}`);
  });
});

describe('scoreCitability', () => {
  it('returns the contract shape with integer dimensions 0-100', () => {
    const r = scoreCitability({ Page: STRONG }, URL_);
    assert.deepEqual(Object.keys(r).sort(), [
      'dimensions',
      'grade',
      'optimalWordCount',
      'overall',
      'recommendations',
      'summary',
      'url',
    ]);
    assert.deepEqual(Object.keys(r.dimensions), [
      'answerBlockQuality',
      'selfContainment',
      'structuralReadability',
      'statisticalDensity',
      'uniquenessSignals',
    ]);
    for (const v of [r.overall, ...Object.values(r.dimensions)]) {
      assert.ok(Number.isInteger(v) && v >= 0 && v <= 100, String(v));
    }
    assert.equal(r.url, URL_);
  });

  it('scores a strong page high and a vague one low', () => {
    const strong = scoreCitability({ Page: STRONG }, URL_);
    const weak = scoreCitability({ Page: WEAK }, URL_);
    assert.ok(strong.overall >= 85, JSON.stringify(strong));
    assert.ok(weak.overall <= 30, JSON.stringify(weak));
    assert.match(strong.grade, /^[AB]$/);
    assert.equal(weak.grade, 'F');
    assert.ok(weak.recommendations.length >= 4);
    assert.ok(strong.recommendations.length < weak.recommendations.length);
  });

  it('overall is the weighted mean of the dimensions', () => {
    const r = scoreCitability({ Page: WEAK }, URL_);
    const expected = citabilityModel.dimensions.reduce(
      (s, d) => s + d.weight * r.dimensions[d.id as keyof typeof r.dimensions],
      0,
    );
    assert.ok(Math.abs(r.overall - expected) <= 1, `${r.overall} vs ${expected}`);
  });

  it('optimalWordCount follows section length', () => {
    assert.equal(scoreCitability({ Page: STRONG }, URL_).optimalWordCount, true);
    const stubby = page('<h2>A?</h2><p>Short answer here.</p><h2>B?</h2><p>Another short one.</p>');
    assert.equal(scoreCitability({ Page: stubby }, URL_).optimalWordCount, false);
    const sprawling = page(`<h2>A?</h2><p>${DETAIL.repeat(6)}</p>`);
    assert.equal(scoreCitability({ Page: sprawling }, URL_).optimalWordCount, false);
  });

  it('explains a page it could not fetch', () => {
    const r = scoreCitability({ Page: { error: { message: 'timeout after 15000 ms' } } }, URL_);
    assert.equal(r.overall, 0);
    assert.equal(r.grade, 'F');
    assert.match(r.summary, /timeout after 15000 ms/);
  });

  it('model: five dimensions, weights sum to 1, one registered check each', () => {
    assert.equal(citabilityModel.dimensions.length, 5);
    assert.ok(Math.abs(citabilityModel.dimensions.reduce((s, d) => s + d.weight, 0) - 1) < 1e-9);
    for (const d of citabilityModel.dimensions) {
      for (const c of d.checks) assert.ok(checksById.has(c.id), c.id);
    }
  });
});
