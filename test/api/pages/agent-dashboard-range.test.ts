import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { call, startTestApi, type TestApi } from '../../helpers/api.ts';
import { type ConsolePerson, signedInPerson } from '../../helpers/console.ts';

// The B dashboard's date range (?range=7d|30d|90d, ?from=&to=) and click-to-filter
// (?agent=, ?page=, ?referrer=), without JavaScript: agent visits sent through POST /api/v1/collect
// today, 10 days ago and 40 days ago, each range and filter counted on the page, bad input answered
// 400 with a message naming it.

const DAY = 86_400_000;
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const CLAUDEBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)';
const CHROME =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const midnight = Math.floor(Date.now() / DAY) * DAY;
/** Noon UTC `n` days before today (today: a minute ago, never in the future). */
const daysAgo = (n: number) =>
  n === 0 ? new Date(Date.now() - 60_000) : new Date(midnight - n * DAY + DAY / 2);
const isoDay = (d: Date) => d.toISOString().slice(0, 10);

function visits(n: number, ua: string, path: string, when: Date, referer: string | null = null) {
  return Array.from({ length: n }, (_, i) => ({
    time: new Date(when.getTime() - i * 1000).toISOString(),
    method: 'GET',
    path,
    status: 200,
    ip: '198.51.100.7',
    user_agent: ua,
    referer,
  }));
}

const total = (html: string) => Number(/id="total-visits">([\d,]+)</.exec(html)?.[1]?.replace(/,/g, ''));
/** Row headers and first numbers of a table: { GPTBot: 3, ... }. */
function tableCounts(html: string, id: string): Record<string, number> {
  const table = new RegExp(`id="${id}"[\\s\\S]*?<tbody>([\\s\\S]*?)</tbody>`).exec(html)?.[1] ?? '';
  const out: Record<string, number> = {};
  for (const row of table.split('<tr>').slice(1)) {
    const head = /<th scope="row"[^>]*>([\s\S]*?)<\/th>/.exec(row)?.[1]?.replace(/<[^>]+>/g, '');
    const visitsCell = /<td data-label="Visits">([\d,]+)</.exec(row)?.[1];
    if (head && visitsCell) out[head] = Number(visitsCell.replace(/,/g, ''));
  }
  return out;
}
const decode = (s: string) => s.replace(/&#38;/g, '&').replace(/&#34;/g, '"');

describe('the B dashboard: date range and filters', () => {
  let t: TestApi;
  let person: ConsolePerson;
  let base: string;
  before(async () => {
    t = await startTestApi();
    person = await signedInPerson(t, 'range@example.test', { tier: 'intelligence' });
    const made = await person.post('/console/agent-sites', { url: 'https://range.example.com/' });
    assert.equal(made.status, 201);
    const id = /href="\/console\/agent-sites\/(\d+)"/.exec(made.text)![1]!;
    const token = /id="ingest-token"[^>]*value="([^"]+)"/.exec(made.text)![1]!;
    const site = /<dt>Tracking id<\/dt><dd><code>([^<]+)</.exec(made.text)![1]!;
    base = `/console/agent-sites/${id}`;
    const requests = [
      ...visits(3, GPTBOT, '/pricing', daysAgo(0)),
      ...visits(2, CLAUDEBOT, '/docs', daysAgo(0)),
      ...visits(1, GPTBOT, '/docs', daysAgo(10)),
      ...visits(4, CLAUDEBOT, '/pricing', daysAgo(10)),
      ...visits(5, CLAUDEBOT, '/old', daysAgo(40)),
      ...visits(2, CHROME, '/pricing', daysAgo(0), 'https://chatgpt.com/'),
      ...visits(1, CHROME, '/docs', daysAgo(0), 'https://www.perplexity.ai/'),
    ];
    const res = await call(t.url, '/api/v1/collect', {
      method: 'POST',
      key: token,
      body: { site, requests },
    });
    assert.equal(res.status, 202, res.text);
    assert.equal(res.body.agents, 15);
    assert.equal(res.body.ai_referrals, 3);
  });
  after(() => t.close());

  it('counts the default 30 days, the 7, 30 and 90 day presets and a custom range, the chosen one marked', async () => {
    const plain = await person.get(base);
    assert.equal(plain.status, 200);
    assert.equal(total(plain.text), 10);
    assert.match(plain.text, /the last 30 days, 2 days with data/);
    // The default range fits the chart to the data; a chosen one spans the range.
    assert.doesNotMatch(plain.text, /xRange/);

    const week = await person.get(`${base}?range=7d`);
    assert.equal(week.status, 200);
    assert.equal(total(week.text), 5);
    assert.match(week.text, /<a href="[^"]*range=7d" aria-current="page">7 days<\/a>/);
    assert.match(week.text, /&#34;xRange&#34;:\[/);
    assert.equal(total((await person.get(`${base}?range=30d`)).text), 10);
    assert.equal(total((await person.get(`${base}?range=90d`)).text), 15);

    const tenDaysAgo = isoDay(daysAgo(10));
    const custom = await person.get(`${base}?from=${tenDaysAgo}&to=${tenDaysAgo}`);
    assert.equal(custom.status, 200);
    assert.equal(total(custom.text), 5);
    assert.deepEqual(tableCounts(custom.text, 'table-agents'), { GPTBot: 1, ClaudeBot: 4 });
    assert.deepEqual(tableCounts(custom.text, 'table-pages'), { '/pricing': 4, '/docs': 1 });
    assert.match(
      custom.text,
      new RegExp(`id="range-from" name="from" type="date" required value="${tenDaysAgo}"`),
    );
    assert.match(custom.text, /href="#range-custom" aria-current="page">Custom/);
    // The chart's axis is that one day: first and last x are the same midnight.
    const chart = JSON.parse(decode(/data-chart="([^"]+)"/.exec(custom.text)![1]!));
    assert.deepEqual(chart.xRange, [Date.parse(tenDaysAgo) / 1000, Date.parse(tenDaysAgo) / 1000]);

    // A range from 40 days ago to 10 days ago: the old and the 10-day-old visits, not today's.
    const span = await person.get(`${base}?from=${isoDay(daysAgo(40))}&to=${tenDaysAgo}`);
    assert.equal(total(span.text), 10);
    assert.deepEqual(tableCounts(span.text, 'table-pages'), { '/old': 5, '/pricing': 4, '/docs': 1 });
  });

  it('filters the whole dashboard by an agent, a page or a referrer, with chips that remove them', async () => {
    const plain = await person.get(base);
    assert.deepEqual(tableCounts(plain.text, 'table-referrers'), { OpenAI: 2, Perplexity: 1 });
    // Each agent, page and referrer is a link that adds its filter and keeps the range.
    const agentLink = decode(/<a href="([^"]+)" data-filter="agent"[^>]*>GPTBot</.exec(plain.text)![1]!);
    assert.equal(agentLink, `${base}?range=30d&agent=GPTBot`);

    const gpt = await person.get(agentLink);
    assert.equal(gpt.status, 200);
    assert.equal(total(gpt.text), 4);
    assert.deepEqual(tableCounts(gpt.text, 'table-agents'), { GPTBot: 4 });
    assert.deepEqual(tableCounts(gpt.text, 'table-pages'), { '/pricing': 3, '/docs': 1 });
    assert.match(
      gpt.text,
      /Agent: <strong>GPTBot<\/strong><\/span> <a href="[^"]*\?range=30d" aria-label="Remove the filter agent GPTBot"/,
    );

    const pageLink = decode(/<a href="([^"]+)" data-filter="page"[^>]*>\/docs</.exec(gpt.text)![1]!);
    assert.equal(pageLink, `${base}?range=30d&agent=GPTBot&page=%2Fdocs`);
    const both = await person.get(pageLink);
    assert.equal(total(both.text), 1);
    assert.match(both.text, /Clear all filters/);

    const pricing = await person.get(`${base}?page=/pricing`);
    assert.equal(total(pricing.text), 7);
    assert.deepEqual(tableCounts(pricing.text, 'table-agents'), { GPTBot: 3, ClaudeBot: 4 });
    assert.deepEqual(tableCounts(pricing.text, 'table-referrers'), { OpenAI: 2 });

    // A referrer: its people, and the agent visits of the pages it sent them to (/docs).
    const perplexity = await person.get(`${base}?referrer=Perplexity`);
    assert.deepEqual(tableCounts(perplexity.text, 'table-referrers'), { Perplexity: 1 });
    assert.equal(total(perplexity.text), 3);
    assert.deepEqual(tableCounts(perplexity.text, 'table-pages'), { '/docs': 3 });

    // A filter matching nothing says so.
    const none = await person.get(`${base}?agent=NoSuchBot&range=7d`);
    assert.equal(total(none.text), 0);
    assert.match(none.text, /No agent visits match the filters in the last 7 days yet/);
  });

  it('answers bad ranges with 400 and a message naming the problem, showing the last 30 days', async () => {
    const cases: [string, RegExp][] = [
      ['?range=12d', /Range &#34;12d&#34; is not one of 7d, 30d, 90d/],
      ['?from=2026-02-30&to=2026-03-02', /the start date \(&#34;2026-02-30&#34;\) is not a date/],
      ['?from=2026-03-02', /the end date \(&#34;empty&#34;\) is not a date/],
      [
        '?from=2026-03-02&to=2026-03-01',
        /the start date \(2026-03-02\) is after the end date \(2026-03-01\)/,
      ],
      ['?from=2020-01-01&to=2026-01-01', /at most 400 days/],
      [
        `?from=${isoDay(new Date(Date.now() + 3 * DAY))}&to=${isoDay(new Date(Date.now() + 4 * DAY))}`,
        /the start date lies in the future/,
      ],
    ];
    for (const [q, message] of cases) {
      const res = await person.get(base + q);
      assert.equal(res.status, 400, q);
      assert.match(res.text, /class="notice error" role="alert"/, q);
      assert.match(res.text, message, q);
      assert.equal(total(res.text), 10, q);
    }
  });
});
