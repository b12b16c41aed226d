import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../../worker/browser/chromium.ts';
import { assertOwnPagesPass, type SelfScan, startSelfScan } from '../../helpers/self-scan.ts';

// Sightline scores its own documentation with its own full scan (browser render, axe, Lighthouse):
// the API reference (Swagger UI, styled by /docs/assets/docs-swagger.css) and a guide must pass
// the accessibility and mobile bars the product sells. Each page's figures are printed.

const chromiumPath = findChromium()?.path;

describe('Sightline scans its own docs', { skip: chromiumPath ? false : 'no Chromium installed' }, () => {
  let self: SelfScan;

  before(async () => {
    self = await startSelfScan([]);
  });
  after(async () => {
    await self?.close();
  });

  it('scores accessibility ≥ 95 and mobile ≥ 90, and Lighthouse accessibility ≥ 95, on /docs and a guide', async () => {
    const { t } = self;
    const key = await t.newKey('A', 'agent', { rateLimit: 10_000 });
    await assertOwnPagesPass(t, key, [`${t.url}/docs`, `${t.url}/docs/guides/scoring`]);
  });
});
