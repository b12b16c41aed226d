import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import type { RenderedArtifact } from '../../shared/scan-engine/artifacts.ts';
import type { BrowserPool } from '../../shared/scan-engine/browser.ts';
import { checksById } from '../../shared/scan-engine/checks/index.ts';
import { runCheck } from '../../shared/scan-engine/engine.ts';
import { gatherRendered } from '../../shared/scan-engine/gatherers/rendered.ts';
import { findChromium } from '../../worker/browser/chromium.ts';
import { createBrowserPool } from '../../worker/browser/pool.ts';
import { htmlPage } from '../helpers/artifact-factory.ts';
import { skipUnlessBrowser } from '../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// Issue 14, mobile fixed widths: decorative ::before/::after blobs inside overflow:hidden
// containers were counted as overflowing. Only boxes that really widen the layout viewport
// count; at 375 px the document's scroll width is the ground truth (full mode), and quick mode
// leaves pseudo-element rules and widths capped by max-width out.

const head = `<meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>x</title>`;
const DECORATIVE = `<!doctype html><html lang="en"><head>${head}<style>
.hero { position: relative; overflow: hidden; padding: 40px 16px; }
.hero::before { content: ""; position: absolute; top: -200px; left: -100px; width: 800px; height: 800px; border-radius: 50%; background: #fde; }
.hero::after { content: ""; position: absolute; right: -300px; width: 640px; height: 400px; background: #def; }
.container { width: 960px; max-width: 100%; margin: 0 auto; }
</style></head><body><section class="hero"><div class="container"><h1>Fresh bread daily</h1><p>Order by 8 pm for next-morning delivery.</p></div></section></body></html>`;
const OVERFLOWING = `<!doctype html><html lang="en"><head>${head}<style>
.prices { width: 900px; }
</style></head><body><main><h1>Prices</h1><table class="prices"><tr><td>Loaf</td><td>£3</td></tr></table></main></body></html>`;

const fixedWidths = (html: string, Rendered?: RenderedArtifact) =>
  runCheck(checksById.get('mobile-fixed-widths')!, {
    Page: htmlPage(html),
    ...(Rendered ? { Rendered } : {}),
  });

describe('mobile fixed widths, quick mode (markup)', () => {
  it('decorative ::before/::after blobs and a width capped by max-width:100% are not counted', () => {
    const r = fixedWidths(DECORATIVE);
    assert.equal(r.outcome, 'pass', r.message);
  });
  it('a plain 900 px rule still counts', () => {
    const r = fixedWidths(OVERFLOWING);
    assert.notEqual(r.outcome, 'pass', r.message);
  });
});

const chromium = findChromium();
describe('mobile fixed widths, full mode: the 375 px render is the ground truth', {
  skip: skipUnlessBrowser(chromium),
}, () => {
  let site: FixtureServer;
  let pool: BrowserPool;
  const send = (html: string) => (_q: unknown, res: import('node:http').ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  // A real element blob (not a pseudo-element) clipped by its overflow:hidden parent.
  const CLIPPED_DIV = DECORATIVE.replace(
    '<div class="container">',
    '<div class="blob" style="position:absolute;width:700px;height:300px;right:-400px"></div><div class="container">',
  );
  before(async () => {
    site = await startFixtureServer({
      routes: {
        '/decorative': send(DECORATIVE),
        '/clipped': send(CLIPPED_DIV),
        '/overflowing': send(OVERFLOWING),
      },
    });
    pool = createBrowserPool({
      policy: createUrlPolicy(`127.0.0.1:${site.port}`),
      chromiumPath: chromium!.path,
    });
  });
  after(async () => {
    await pool?.close();
    await site?.close();
  });

  it('clipped blobs (pseudo-elements or elements) do not widen the page: pass', async () => {
    for (const [path, html] of [
      ['/decorative', DECORATIVE],
      ['/clipped', CLIPPED_DIV],
    ] as const) {
      const rendered = await gatherRendered({ url: `${site.origin}${path}` }, pool);
      assert.ok(
        rendered.mobile.scrollWidth <= rendered.mobile.width + 2,
        `${path}: ${rendered.mobile.scrollWidth}`,
      );
      assert.deepEqual(rendered.mobile.widening, []);
      const r = fixedWidths(html, rendered);
      assert.equal(r.outcome, 'pass', `${path}: ${r.message}`);
    }
  });

  it('a 900 px table widens the page: named, and not a pass', async () => {
    const rendered = await gatherRendered({ url: `${site.origin}/overflowing` }, pool);
    assert.ok(rendered.mobile.scrollWidth > 800);
    assert.match((rendered.mobile.widening ?? []).join(' '), /table\.prices/);
    const r = fixedWidths(OVERFLOWING, rendered);
    assert.notEqual(r.outcome, 'pass');
    assert.match(r.message, /table\.prices/);
  });
});
