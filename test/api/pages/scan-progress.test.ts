import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { elapsedLabel, phaseLabel, SCAN_PHASES } from '../../../shared/scans/phases.ts';
import { requestScanIn } from '../../../shared/scans/scans.ts';
import { startTestApi, type TestApi } from '../../helpers/api.ts';

// The progress view speaks the worker's phase vocabulary (shared/scans/phases.ts): every phase and
// every combination the engine can report (phases run side by side) reads as what is happening.

let t: TestApi;
before(async () => {
  t = await startTestApi();
});
after(() => t.close());

/** Every non-empty ordered subset of the phases, joined as the engine joins them. */
function combinations(): string[] {
  const out: string[] = [];
  for (let mask = 1; mask < 1 << SCAN_PHASES.length; mask++)
    out.push(SCAN_PHASES.filter((_, i) => mask & (1 << i)).join('+'));
  return out;
}

/** A scan the API made, moved to `phase` as the worker would, `ageSeconds` after it was asked for. */
async function scanIn(phase: string | null, ageSeconds: number): Promise<string> {
  const scan = await t.handle.db.transaction().execute((trx) =>
    requestScanIn(trx, t.api.services.config, {
      url: new URL('https://example.com/'),
      mode: 'full',
      accountId: null,
    }),
  );
  await sql`update scans set status = 'running', phase = ${phase}, started_at = now(),
              created_at = now() - make_interval(secs => ${ageSeconds}) where id = ${scan.id}`.execute(
    t.handle.db,
  );
  return scan.id;
}

describe('scan progress', () => {
  it('names every phase and combination the engine reports, never the generic "Scanning"', () => {
    for (const phase of combinations()) {
      const label = phaseLabel('running', phase);
      assert.notEqual(label, 'Scanning', phase);
      // Each phase of a combination is named.
      assert.equal(label.split(', ').length, phase.split('+').length, `${phase}: ${label}`);
    }
    assert.equal(
      phaseLabel('running', 'fetch+render+lighthouse'),
      'Fetching the page and its files, rendering it in a browser, running Lighthouse',
    );
    assert.equal(phaseLabel('queued', null), 'Waiting for a free worker');
    assert.equal(phaseLabel('running', 'starting'), 'Starting');
    assert.equal(elapsedLabel(8_400), '8 s');
    assert.equal(elapsedLabel(65_000), '1 min 05 s');
  });

  it('the page and its state poll show the worker’s phase and the time so far', async () => {
    const id = await scanIn('fetch+render+lighthouse', 75);
    const state = await fetch(`${t.url}/r/${id}/state`, { headers: { accept: 'application/json' } });
    assert.equal(state.status, 200);
    const body = (await state.json()) as { done: boolean; phase: string; label: string; elapsed: string };
    assert.equal(body.done, false);
    assert.equal(body.phase, 'fetch+render+lighthouse');
    assert.match(body.label, /running Lighthouse/);
    assert.match(body.elapsed, /^1 min 1[5-9] s$/);

    await sql`update scans set phase = 'score' where id = ${id}`.execute(t.handle.db);
    const page = await fetch(`${t.url}/r/${id}`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    const text = await page.text();
    assert.match(text, /<span data-phase>Scoring the results…<\/span>/);
    assert.match(text, /data-elapsed>1 min 1[5-9] s</);
  });
});

describe('scan report of an error page', () => {
  it('gives the API’s verdict (not scored) and no audit upsell', async () => {
    const id = await scanIn(null, 5);
    // What the engine stores for a page that answered 404 (shared/scan-engine/engine.ts scoreModel).
    const result = {
      modelId: 'site-audit',
      modelVersion: 'x',
      overallScore: 0,
      grade: 'F',
      dimensions: [],
      httpStatus: 404,
      pageKind: 'error_status',
    };
    await sql`update scans set status = 'done', phase = null, finished_at = now(),
              results = ${JSON.stringify({ 'site-audit': result, 'agent-readability': { ...result, modelId: 'agent-readability' } })}::jsonb
              where id = ${id}`.execute(t.handle.db);
    const page = await fetch(`${t.url}/r/${id}`, { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200);
    const text = await page.text();
    assert.match(text, /answered HTTP 404/);
    assert.match(text, /not scored/);
    assert.doesNotMatch(text, /Order the|Recommended:|grade F/);
    // The API says the same of the same scan.
    const key = await t.newKey('A', 'free');
    const api = await fetch(`${t.url}/api/v1/scans/${id}?view=a`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(api.status, 422);
    assert.equal(((await api.json()) as { code: string }).code, 'target_error_status');
  });
});
