import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ArtifactSet } from '../../../shared/scan-engine/artifacts.ts';
import { allChecks, checksById } from '../../../shared/scan-engine/checks/index.ts';
import { pageVerdict } from '../../../shared/scan-engine/computed/page-kind.ts';
import { runChecks, scoreModel } from '../../../shared/scan-engine/engine.ts';
import { models } from '../../../shared/scan-engine/models/index.ts';
import { SCAN_MODELS, scoreArtifacts } from '../../../shared/scan-engine/score.ts';
import { page } from '../../helpers/artifact-factory.ts';

// scoreArtifacts runs only the checks the asked-for models use: the same scores as running every
// check, and a check no asked model names does not run at all.

const SITE = 'https://bakery.example.dk';
const HTML = `<!doctype html><html lang="da-DK"><head><title>Bageriet på hjørnet</title>
<meta name="description" content="Surdejsbrød og kager, bagt hver morgen i Aarhus.">
<meta property="og:image" content="${SITE}/og.jpg"></head><body>
<header><nav><a href="/">Forside</a><a href="/kontakt">Kontakt</a></nav></header>
<main><h1>Bageriet på hjørnet</h1><h2>Hvornår har I åbent?</h2>
<p>Vi bager surdejsbrød hver morgen fra klokken fem, og butikken åbner klokken syv på hverdage og otte i weekenden, så der er friske boller til morgenmaden hele ugen.</p>
<p><a href="https://www.google.com/maps?q=Bageriet">Find os på kortet</a></p></main>
<footer>Tlf. 86 12 34 56 · hej@bageriet.dk · Søndergade 1, 8000 Aarhus C</footer></body></html>`;

function artifacts(): ArtifactSet {
  return { Page: page({ html: HTML, finalUrl: `${SITE}/` }) };
}

describe('scoreArtifacts', () => {
  for (const ids of [[...SCAN_MODELS], ['monitoring'], ['geo', 'citability'], Object.keys(models)]) {
    it(`scores ${ids.join(' + ')} exactly as running every check would`, () => {
      const set = artifacts();
      const every = runChecks(allChecks, set);
      const verdict = pageVerdict(set);
      const got = scoreArtifacts(set, ids);
      assert.deepEqual(Object.keys(got), ids);
      for (const id of ids) assert.deepEqual(got[id], scoreModel(models[id]!, every, verdict), id);
    });
  }

  it('runs a check only when an asked-for model uses it', () => {
    const check = checksById.get('local-contact-details');
    assert.ok(check);
    const run = check.run;
    let runs = 0;
    check.run = (a) => {
      runs++;
      return run(a);
    };
    try {
      scoreArtifacts(artifacts());
      assert.equal(runs, 0, 'the scan models do not use local-contact-details');
      const monitoring = scoreArtifacts(artifacts(), ['monitoring']).monitoring;
      assert.equal(runs, 1);
      const local = monitoring?.dimensions.flatMap((d) => d.checks).find((c) => c.id === check.meta.id);
      assert.equal(local?.outcome, 'pass', JSON.stringify(local));
    } finally {
      check.run = run;
    }
  });

  it('refuses an unknown model', () => {
    assert.throws(() => scoreArtifacts(artifacts(), ['nope']), /unknown scoring model nope/);
  });
});
