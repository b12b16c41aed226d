import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GeoAnswer, GeoRun } from '../../../shared/db/tables/geo.ts';
import { parseRetryAfter } from '../../../shared/geo/answer-engines/engine.ts';
import { shareOfVoiceView, visibilityView } from '../../../shared/geo/results.ts';
import { seedPrompts } from '../../../shared/geo/seed.ts';
import { changeLabel, wilson } from '../../../shared/geo/stats.ts';

// The pure parts of GEO: the Wilson interval and noise label, how answers become rates (with a
// provider that cannot cite kept out of the rate), Retry-After, and seed prompts.

describe('Wilson interval', () => {
  it('matches published values', () => {
    // 95% Wilson for 2 of 3 is 0.208-0.939 (e.g. Newcombe 1998, table I method 3 style figures).
    assert.deepEqual(wilson(2, 3), { low: 0.2077, high: 0.9385, level: 0.95 });
    assert.deepEqual(wilson(0, 10), { low: 0, high: 0.2775, level: 0.95 });
    assert.deepEqual(wilson(10, 10), { low: 0.7225, high: 1, level: 0.95 });
    assert.deepEqual(wilson(0, 0), { low: 0, high: 1, level: 0.95 });
  });
  it('labels a change inside the interval as noise, outside as up or down', () => {
    const i = wilson(5, 10);
    assert.equal(changeLabel(0.5, i, 0.4), 'noise');
    assert.equal(changeLabel(0.5, i, 0.1), 'up');
    assert.equal(changeLabel(0.5, i, 0.9), 'down');
    const tight = wilson(500, 1000);
    assert.equal(changeLabel(0.5, tight, 0.4), 'up');
  });
});

describe('Retry-After', () => {
  it('reads delta-seconds and HTTP dates', () => {
    assert.equal(parseRetryAfter('7'), 7);
    assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 5_000), 5);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter(undefined), undefined);
  });
});

function run(over: Partial<GeoRun> = {}): GeoRun {
  return {
    id: 'gr_test000000',
    account_id: '1',
    site_id: '1',
    kind: 'visibility',
    trigger: 'api',
    status: 'done',
    providers: ['openai', 'openai_compatible'],
    runs_per_prompt: 2,
    calls_reserved: 8,
    sites: [
      { id: 1, url: 'https://example.co.uk/', label: 'Example', isOwn: true },
      { id: 2, url: 'https://rival.com/', label: 'Rival', isOwn: false },
    ],
    summary: {
      providers: [
        { provider: 'openai', model: 'm', cites: true, status: 'ok', answers: 4, retries: 0 },
        { provider: 'openai_compatible', model: 'llama', cites: false, status: 'ok', answers: 4, retries: 0 },
      ],
    },
    error: null,
    schedule_slot: null,
    created_at: new Date(0),
    started_at: new Date(0),
    finished_at: new Date(1000),
    ...over,
  } as GeoRun;
}

let seq = 0;
function ans(provider: string, promptId: string, text: string, cite: string[]): GeoAnswer {
  return {
    id: String(++seq),
    run_id: 'gr_test000000',
    prompt_id: promptId,
    prompt: `prompt ${promptId}`,
    label: `label ${promptId}`,
    provider,
    model: 'm',
    iteration: seq,
    answer: text,
    citations: cite.map((url, i) => ({ url, title: null, position: i + 1 })),
    sources: [],
    usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 },
    created_at: new Date(0),
  } as GeoAnswer;
}

describe('visibility and share of voice from stored answers', () => {
  const answers = [
    ans('openai', '1', 'a', ['https://www.example.co.uk/']),
    ans('openai', '1', 'b', ['https://rival.com/', 'https://shop.example.co.uk/']),
    ans('openai', '2', 'c', ['https://rival.com/']),
    ans('openai', '2', 'd', []),
    ans('openai_compatible', '1', 'Example is great', []),
    ans('openai_compatible', '1', 'nothing', []),
    ans('openai_compatible', '2', 'example.co.uk!', []),
    ans('openai_compatible', '2', 'nothing', []),
  ];
  it('counts only providers that cite in the rate; mentions from all', () => {
    const v = visibilityView(run(), answers);
    // Plain meanings (decisions.md): prompts in the run, prompts cited at least once, and the
    // answers behind the rate.
    assert.equal(v.totalPrompts, 2);
    assert.equal(v.totalPrompts, v.results.length);
    assert.equal(v.citedCount, 1);
    assert.deepEqual([v.answers, v.citedAnswers, v.citationRate], [4, 2, 0.5]);
    assert.equal(v.mentionCount, 2);
    const compat = v.platforms.find((p) => p.platform === 'openai_compatible')!;
    assert.equal(compat.cites, false);
    assert.deepEqual([compat.totalPrompts, compat.citedCount, compat.answers], [2, 0, 0]);
    assert.equal(compat.mentionCount, 2);
    const r1 = v.results.find((r) => r.promptId === 1)!;
    assert.deepEqual([r1.cited, r1.citedRuns, r1.runs, r1.firstCitationPosition], [true, 2, 2, 1]);
    const r2 = v.results.find((r) => r.promptId === 2)!;
    assert.deepEqual([r2.cited, r2.citedRuns, r2.firstCitationPosition], [false, 0, null]);
  });
  it('a run of 4 prompts x 3 runs reports 4 prompts, and a prompt cited in one of its runs is cited', () => {
    const many: GeoAnswer[] = [];
    for (const p of ['1', '2', '3', '4'])
      for (let i = 0; i < 3; i++)
        many.push(
          ans('openai', p, 'x', (p === '1' && i === 0) || p === '2' ? ['https://www.example.co.uk/'] : []),
        );
    const v = visibilityView(run({ runs_per_prompt: 3 }), many);
    assert.deepEqual([v.totalPrompts, v.citedCount, v.answers, v.citedAnswers], [4, 2, 12, 4]);
    assert.equal(v.citationRate, 0.3333);
    const r1 = v.results.find((r) => r.promptId === 1)!;
    assert.deepEqual([r1.cited, r1.citedRuns, r1.runs], [true, 1, 3]);
    const s = shareOfVoiceView(run({ kind: 'sov', runs_per_prompt: 3 }), many, null);
    assert.deepEqual(
      [s.ownSite.totalPrompts, s.ownSite.citedCount, s.ownSite.answers, s.ownSite.citedAnswers],
      [4, 2, 12, 4],
    );
    const b1 = s.promptBreakdown.find((p) => p.promptId === 1)!.results.find((r) => r.isOwn)!;
    assert.deepEqual([b1.cited, b1.citedRuns, b1.runs], [true, 1, 3]);
  });
  it('labels week-over-week: a previous rate inside this interval is noise, outside it a real change', () => {
    // This run: 2 of 4 cited, 95% interval 0.15-0.85.
    const same = visibilityView(run(), answers, { run: run({ id: 'gr_prev00000000' }), answers });
    assert.deepEqual([same.change?.previousCitationRate, same.change?.label], [0.5, 'noise']);
    const high = visibilityView(run(), answers, {
      run: run({ id: 'gr_prev00000001' }),
      answers: answers.slice(0, 2),
    });
    assert.deepEqual(
      [high.change?.previousCitationRate, high.change?.delta, high.change?.label],
      [1, -0.5, 'down'],
    );
  });
  it('ranks sites and measures the gap to the leader', () => {
    const s = shareOfVoiceView(run({ kind: 'sov' }), answers, 'C');
    assert.equal(s.ownSite.citationRate, 0.5);
    assert.equal(s.competitors[0]!.citationRate, 0.5);
    assert.equal(s.yourRank, 1, 'a tie does not rank below');
    assert.equal(s.gapToLeader, 0);
    assert.equal(s.ownSite.geoGrade, 'C');
  });
});

describe('seed prompts', () => {
  const html = `<!doctype html><html><head><title>Acme Plumbing | Emergency plumbers in Leeds</title>
    <meta name="description" content="Acme fixes leaking pipes and boilers across Leeds, day and night.">
    <script type="application/ld+json">{"@context":"https://schema.org","@graph":[
      {"@type":"FAQPage","mainEntity":[{"@type":"Question","name":"How much does an emergency plumber cost in Leeds?","acceptedAnswer":{"@type":"Answer","text":"From £80."}}]},
      {"@type":"Product","name":"Acme Boiler Service Plan"},
      {"@type":"Service","name":"Drain unblocking"}]}</script></head>
    <body><h1>Emergency plumbers in Leeds</h1><h2>Why is my boiler losing pressure?</h2><h2>Boiler servicing</h2></body></html>`;
  const out = seedPrompts(html, 'https://www.acmeplumbing.co.uk/', 'Acme');
  it('takes FAQ questions, products, services, title, description and headings', () => {
    const by = (s: string) => out.filter((p) => p.source === s).map((p) => p.prompt);
    assert.deepEqual(by('faq'), [
      'How much does an emergency plumber cost in Leeds?',
      'Why is my boiler losing pressure?',
    ]);
    assert.equal(by('product').length, 1);
    assert.match(by('product')[0]!, /boiler service plan/i);
    assert.match(by('service')[0]!, /drain unblocking/i);
    assert.match(by('title')[0]!, /emergency plumbers in leeds/i);
    assert.ok(by('heading').some((p) => /boiler servicing/i.test(p)));
  });
  it('never names the brand', () => {
    for (const p of out) assert.doesNotMatch(p.prompt, /acme/i, p.prompt);
  });
});
