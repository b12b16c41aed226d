import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Check } from '../../../../shared/scan-engine/check.ts';
import { cacheHitProbability, cacheLifetime } from '../../../../shared/scan-engine/checks/speed/lib/cache.ts';
import { transferMs } from '../../../../shared/scan-engine/checks/speed/lib/network.ts';
import speedCaching from '../../../../shared/scan-engine/checks/speed/speed-caching.ts';
import speedCls from '../../../../shared/scan-engine/checks/speed/speed-cls.ts';
import speedCompression from '../../../../shared/scan-engine/checks/speed/speed-compression.ts';
import speedFcp from '../../../../shared/scan-engine/checks/speed/speed-fcp.ts';
import speedImageWeight from '../../../../shared/scan-engine/checks/speed/speed-image-weight.ts';
import speedLcp from '../../../../shared/scan-engine/checks/speed/speed-lcp.ts';
import speedLighthousePerformance from '../../../../shared/scan-engine/checks/speed/speed-lighthouse-performance.ts';
import speedPageWeight from '../../../../shared/scan-engine/checks/speed/speed-page-weight.ts';
import speedRenderBlocking from '../../../../shared/scan-engine/checks/speed/speed-render-blocking.ts';
import speedSpeedIndex from '../../../../shared/scan-engine/checks/speed/speed-speed-index.ts';
import speedTbt from '../../../../shared/scan-engine/checks/speed/speed-tbt.ts';
import speedTtfb from '../../../../shared/scan-engine/checks/speed/speed-ttfb.ts';
import { logNormalScore } from '../../../../shared/scan-engine/curves.ts';
import { checkTable, lighthouse, page, resources, run } from '../../../helpers/artifact-factory.ts';

const KiB = 1024;
const ttfb = (ms: number) => ({ Page: page({ timings: { ttfbMs: ms, totalMs: ms + 100 } }) });
const img = (bytes: number, name = 'photo.jpg') => ({
  url: `https://example.test/${name}`,
  type: 'image' as const,
  bytes,
  contentType: 'image/jpeg',
  contentEncoding: null,
});

checkTable(speedTtfb, [
  ['fast server', ttfb(120), { outcome: 'pass', message: /120 ms/ }],
  ["web.dev's good line scores 0.9", ttfb(800), { outcome: 'pass', score: [0.89, 0.91] }],
  [
    "web.dev's poor line scores 0.5",
    ttfb(1800),
    { outcome: 'warn', score: [0.49, 0.51], message: /slow to respond: time to first byte 1\.8 s/ },
  ],
  ['very slow', ttfb(5000), { outcome: 'fail' }],
]);

checkTable(speedPageWeight, [
  [
    'light page',
    { Page: page(), Resources: resources([{ bytes: 300 * KiB }]) },
    { outcome: 'pass', message: /2 requests/ },
  ],
  [
    "Lighthouse's median weight scores 0.5",
    { Page: page({ bytes: { transferred: 0, decoded: 0 } }), Resources: resources([img(4000 * KiB)]) },
    { outcome: 'warn', score: [0.49, 0.51], message: /mostly image/ },
  ],
  ['very heavy', { Page: page(), Resources: resources([img(9000 * KiB)]) }, { outcome: 'fail' }],
  [
    'unfetched resources do not count',
    { Page: page(), Resources: resources([{ ...img(9000 * KiB), status: null, bytes: null }], 3) },
    { outcome: 'pass', message: /3 resources not measured/ },
  ],
  ['quick mode without Resources', { Page: page() }, { outcome: 'not_applicable' }],
]);

const textPage = (encoding: string | null, bytes = 60 * KiB) =>
  page({ contentEncoding: encoding, bytes: { transferred: bytes, decoded: bytes } });
checkTable(speedCompression, [
  [
    'all compressed',
    { Page: textPage('br'), Resources: resources([{ contentEncoding: 'gzip' }]) },
    { outcome: 'pass' },
  ],
  [
    'uncompressed HTML and script',
    {
      Page: textPage(null, 120 * KiB),
      Resources: resources([{ contentEncoding: null, bytes: 200 * KiB, url: 'https://example.test/app.js' }]),
    },
    { outcome: 'fail', message: /2 of 2 text responses are not compressed \(the page HTML, app\.js\)/ },
  ],
  [
    'a small uncompressed stylesheet costs little',
    {
      Page: textPage('br'),
      Resources: resources([
        { type: 'stylesheet', contentType: 'text/css', contentEncoding: null, bytes: 8 * KiB },
      ]),
    },
    { outcome: 'pass', score: [0.9, 1] },
  ],
  [
    'tiny responses are ignored',
    { Page: textPage(null, 1000), Resources: resources([]) },
    { outcome: 'pass', message: /large enough/ },
  ],
  [
    'images are not text',
    { Page: textPage('br'), Resources: resources([img(500 * KiB)]) },
    { outcome: 'pass' },
  ],
]);

checkTable(speedCaching, [
  ['long-lived assets', { Resources: resources([{}, img(100 * KiB)]) }, { outcome: 'pass' }],
  [
    'no cache headers on heavy assets',
    {
      Resources: resources([
        { ...img(400 * KiB), cacheControl: null },
        { cacheControl: 'no-store', bytes: 300 * KiB },
      ]),
    },
    { outcome: 'fail', message: /2 of 2 static assets .*2 not cacheable/ },
  ],
  [
    'one hour on a small script',
    { Resources: resources([{ cacheControl: 'max-age=3600', bytes: 10 * KiB }]) },
    { outcome: 'pass', score: [0.9, 1] },
  ],
  ['no static assets', { Resources: resources([]) }, { outcome: 'not_applicable' }],
]);

checkTable(speedRenderBlocking, [
  ['nothing blocks', { Resources: resources([{ renderBlocking: false }]) }, { outcome: 'pass' }],
  [
    'one small same-origin stylesheet',
    { Resources: resources([{ type: 'stylesheet', renderBlocking: true, bytes: 8 * KiB }]) },
    { outcome: 'warn', score: [0.75, 0.9] },
  ],
  [
    'third-party fonts and a big framework',
    {
      Resources: resources([
        {
          type: 'stylesheet',
          renderBlocking: true,
          bytes: 30 * KiB,
          sameOrigin: false,
          url: 'https://fonts.example.net/css',
        },
        {
          type: 'script',
          renderBlocking: true,
          bytes: 250 * KiB,
          sameOrigin: false,
          url: 'https://cdn.example.org/framework.js',
        },
      ]),
    },
    { outcome: 'fail', message: /2 render-blocking resources \(1 script, 280 KiB, 2 other origins\)/ },
  ],
]);

checkTable(speedImageWeight, [
  ['modest images', { Resources: resources([img(80 * KiB), img(150 * KiB)]) }, { outcome: 'pass' }],
  [
    'one 961 KiB hero',
    { Resources: resources([img(961 * KiB, 'hero.jpg')]) },
    { outcome: 'fail', message: /hero\.jpg 961 KiB/ },
  ],
  [
    'slightly over budget is tolerated',
    { Resources: resources([img(230 * KiB)]) },
    { outcome: 'pass', message: /1 image slightly above/ },
  ],
  ['well over budget', { Resources: resources([img(300 * KiB)]) }, { outcome: 'warn' }],
  ['no images', { Resources: resources([{}]) }, { outcome: 'not_applicable' }],
]);

// Lighthouse 12's mobile control points: the p10 value scores 0.9, the median 0.5.
const metricCases: [Check, string, number, number][] = [
  [speedFcp, 'first-contentful-paint', 1800, 3000],
  [speedLcp, 'largest-contentful-paint', 2500, 4000],
  [speedTbt, 'total-blocking-time', 200, 600],
  [speedCls, 'cumulative-layout-shift', 0.1, 0.25],
  [speedSpeedIndex, 'speed-index', 3387, 5800],
];
for (const [check, audit, p10, median] of metricCases) {
  checkTable(check, [
    ['at p10', { Lighthouse: lighthouse({}, { [audit]: p10 }) }, { outcome: 'pass', score: [0.89, 0.91] }],
    [
      'at the median',
      { Lighthouse: lighthouse({}, { [audit]: median }) },
      { outcome: 'warn', score: [0.49, 0.51], message: /needs improvement/ },
    ],
    [
      'far beyond',
      { Lighthouse: lighthouse({}, { [audit]: median * 3 }) },
      { outcome: 'fail', message: /poor/ },
    ],
    [
      'not measured',
      { Lighthouse: { ...lighthouse(), runtimeError: 'NO_FCP' } },
      { outcome: 'not_applicable', message: /NO_FCP/ },
    ],
    ['quick mode', { Page: page() }, { outcome: 'not_applicable' }],
  ]);
}

checkTable(speedLighthousePerformance, [
  ['good', { Lighthouse: lighthouse({ performance: 0.97 }) }, { outcome: 'pass', message: /97/ }],
  ['mediocre', { Lighthouse: lighthouse({ performance: 0.6 }) }, { outcome: 'warn' }],
  ['not scored', { Lighthouse: lighthouse({ performance: null }) }, { outcome: 'not_applicable' }],
]);

describe('speed helpers', () => {
  it('simulated slow 4G moves 1.6 Mibit/s', () => assert.equal(Math.round(transferMs(209_715.2)), 1000));
  it('cache lifetimes follow Cache-Control', () => {
    assert.equal(cacheLifetime('public, max-age=600'), 600);
    assert.equal(cacheLifetime('no-cache, max-age=600'), 0);
    assert.equal(cacheLifetime(null), 0);
  });
  it('cache hit probability rises with lifetime and saturates', () => {
    assert.equal(cacheHitProbability(0), 0);
    assert.equal(cacheHitProbability(24 * 3600), 0.6); // a day is the 60th percentile of hit ages
    assert.ok(cacheHitProbability(7 * 86400) > cacheHitProbability(86400));
    assert.equal(cacheHitProbability(2 * 365 * 86400), 1);
  });
  it('metric checks score exactly like the engine curve', () => {
    const got = run(speedLcp, { Lighthouse: lighthouse({}, { 'largest-contentful-paint': 3100 }) });
    assert.equal(got.score, Math.round(logNormalScore({ p10: 2500, median: 4000 }, 3100) * 100) / 100);
  });
});
