import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../../../shared/db/embedded.ts';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { call } from '../../helpers/api.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Sightline scores its own documentation with its own full scan (browser render, axe, Lighthouse):
// the API reference (Swagger UI, styled by /docs/assets/docs-swagger.css) and a guide must pass
// the accessibility and mobile bars the product sells. Each page's figures are printed.

const chromiumPath = findChromium()?.path;

describe('Sightline scans its own docs', { skip: chromiumPath ? false : 'no Chromium installed' }, () => {
  let t: TestStack;

  before(async () => {
    const apiPort = await freePort();
    t = await startTestStack({ PORT: String(apiPort), SCAN_ALLOW_HOSTS: `127.0.0.1:${apiPort}` });
  });
  after(async () => {
    await t?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on /docs and a guide', async () => {
    const key = await t.newKey('A', 'agent', { rateLimit: 10_000 });
    const results: string[] = [];
    const failures: string[] = [];
    for (const url of [`${t.url}/docs`, `${t.url}/docs/guides/scoring`]) {
      const res = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(url)}&mode=full&wait=120`, {
        key,
      });
      assert.equal(res.status, 200, `${url}: ${res.text}`);
      const dim = (id: string) => res.body.dimensions.find((d: { id: string }) => d.id === id);
      const a11y = dim('accessibility');
      const mobile = dim('mobile');
      const scan = await t.handle.db
        .selectFrom('scans')
        .select('artifacts')
        .where('id', '=', res.body.scanId)
        .executeTakeFirstOrThrow();
      const lh = (scan.artifacts as { Lighthouse?: { categories?: Record<string, number | null> } })
        .Lighthouse;
      const lhA11y = Math.round((lh?.categories?.accessibility ?? 0) * 100);
      results.push(
        `${url}: accessibility ${a11y.score}, mobile ${mobile.score}, Lighthouse accessibility ${lhA11y}`,
      );
      if (a11y.score < 95) failures.push(`${url} accessibility ${a11y.score}: ${a11y.issues.join('; ')}`);
      if (mobile.score < 90) failures.push(`${url} mobile ${mobile.score}: ${mobile.issues.join('; ')}`);
      if (lhA11y < 95) failures.push(`${url} Lighthouse accessibility ${lhA11y}`);
    }
    console.log(results.join('\n'));
    assert.deepEqual(failures, [], failures.join('\n'));
  });
});
