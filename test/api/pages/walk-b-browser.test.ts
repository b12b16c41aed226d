import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { main } from '../../../cli/main.ts';
import { resetConfig } from '../../../shared/config.ts';
import { skipUnlessBrowser } from '../../helpers/browser.ts';
import {
  assertFitsPhone,
  type BrowserStack,
  chromiumPath,
  startBrowserStack,
} from '../../helpers/browser-stack.ts';

// The B walk, as an invited customer does it in real Chromium at a phone's width: the operator's
// `sightline invites create --mail` -> the link from the (loopback) SMTP server -> accept with a
// password -> register a site in the console -> the snippet with the ingest token -> agent visits
// and AI referrals sent with that token through POST /api/v1/collect -> the dashboard: pick 7 days,
// then a custom range, then filter by an agent and a page by clicking them and remove a filter chip.
// Every page fits 375 px. With CONSOLE_SCREENSHOTS_DIR set, the dashboard is photographed.

const PASSWORD = 'correct horse battery staple';
const DAY = 86_400_000;
const SHOTS = process.env.CONSOLE_SCREENSHOTS_DIR;
const EMAIL = 'walker@example.test';

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

function visits(n: number, ua: string, p: string, when: Date, referer: string | null = null) {
  return Array.from({ length: n }, (_, i) => ({
    time: new Date(when.getTime() - i * 1000).toISOString(),
    method: 'GET',
    path: p,
    status: 200,
    ip: '198.51.100.7',
    user_agent: ua,
    referer,
  }));
}

const digits = (s: string) => Number(s.replace(/[^0-9]/g, ''));

describe('walk B: from an invitation to a filtered dashboard', {
  skip: skipUnlessBrowser(chromiumPath),
}, () => {
  let stack: BrowserStack;

  before(async () => {
    stack = await startBrowserStack({ AUTH_IP_LIMIT: '1000' }, { worker: false });
    if (SHOTS) fs.mkdirSync(SHOTS, { recursive: true });
  });
  after(async () => {
    await stack?.close();
  });

  /** The operator's CLI, against the test database, mailing through the loopback SMTP server. */
  async function inviteByMail(): Promise<string> {
    const { t, smtp } = stack;
    const env = { DATABASE_URL: t.database.url, PUBLIC_SITE_URL: t.url, SMTP_URL: smtp.url };
    Object.assign(process.env, env);
    resetConfig();
    const out: string[] = [];
    try {
      const code = await main(['invites', 'create', '--email', EMAIL, '--tier', 'intelligence', '--mail'], {
        out: (l) => out.push(l),
        err: () => {},
      });
      assert.equal(code, 0, out.join('\n'));
    } finally {
      for (const k of Object.keys(env)) delete process.env[k];
      resetConfig();
    }
    assert.ok(out.includes(`Sent to ${EMAIL}.`), out.join('\n'));
    const mail = await smtp.waitFor(EMAIL, /invitation/i);
    const link = /https?:\/\/\S+\/invite\/\S+/.exec(mail.text)?.[0];
    assert.ok(link, mail.text);
    assert.equal(
      link,
      out.find((l) => l.includes('/invite/')),
    );
    return link;
  }

  const total = async (page: Page) => digits(await page.locator('#total-visits').innerText());

  it('invitation, site, snippet, collected visits, then the dashboard by range and by click-to-filter', async () => {
    const link = await inviteByMail();
    const { t } = stack;
    const ctx = await stack.phone();
    const page = await ctx.newPage();

    // Accept the invitation.
    await page.goto(link);
    await assertFitsPhone(page);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('heading', { name: 'Welcome to Sightline' }).waitFor();
    assert.match(await page.getByLabel('API key').inputValue(), /^ar_/);

    // Register a site; the snippet carries the ingest token shown once.
    await page.goto('/console');
    await page.getByRole('link', { name: 'Agent traffic' }).first().click();
    await page.waitForURL(/\/console\/agent-sites$/);
    await page.getByLabel('Address').fill('https://walk-b.example.com/');
    await page.getByLabel('Label').fill('Walk shop');
    await page.getByRole('button', { name: 'Register site' }).click();
    await page.getByRole('heading', { name: 'Walk shop is registered' }).waitFor();
    await assertFitsPhone(page);
    const token = await page.getByLabel('Ingest token').inputValue();
    const trackingId = (await page.locator('.key-once dd code').innerText()).trim();
    const curl = await page.locator('#snippet-curl').innerText();
    assert.ok(curl.includes(token) && curl.includes(trackingId), curl);

    // Visits sent as the snippet does: today, and 10 days ago; people sent by ChatGPT today.
    const requests = [
      ...visits(3, GPTBOT, '/pricing', daysAgo(0)),
      ...visits(2, CLAUDEBOT, '/docs', daysAgo(0)),
      ...visits(4, CLAUDEBOT, '/pricing', daysAgo(10)),
      ...visits(2, CHROME, '/pricing', daysAgo(0), 'https://chatgpt.com/'),
    ];
    const sent = await fetch(`${t.url}/api/v1/collect`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ site: trackingId, requests }),
    });
    const counts = await sent.json();
    assert.equal(sent.status, 202, JSON.stringify(counts));
    assert.equal(counts.agents, 9);
    assert.equal(counts.ai_referrals, 2);

    // The dashboard: the last 30 days by default.
    await page.getByRole('link', { name: 'Open the dashboard' }).click();
    await page.locator('#total-visits').waitFor();
    await assertFitsPhone(page);
    assert.equal(await total(page), 9);
    assert.match(await page.locator('#range-shown').innerText(), /Last 30 days/);

    // Pick 7 days: today's visits only, and the chart's axis spans the 7 days.
    const ranges = page.getByRole('navigation', { name: 'Date range' });
    await ranges.getByRole('link', { name: '7 days' }).click();
    await page.waitForURL(/range=7d/);
    assert.equal(await total(page), 5);
    assert.equal(await ranges.getByRole('link', { name: '7 days' }).getAttribute('aria-current'), 'page');
    await page.locator('#chart-visits[data-drawn=true] canvas').waitFor();
    // The axis spans the range (since 7 days ago: 8 UTC days, first to last midnight 7 days
    // apart) with its margins, although only today has data.
    const axis = await page.locator('#chart-visits').evaluate((el) => {
      const x = (el as unknown as { chart: { scales: { x: { min: number; max: number } } } }).chart.scales.x;
      const range = JSON.parse(el.getAttribute('data-chart') ?? '{}').xRange as [number, number];
      return { min: x.min, max: x.max, range };
    });
    assert.equal(axis.range[1] - axis.range[0], 7 * 86400);
    assert.ok(axis.min <= axis.range[0] && axis.max >= axis.range[1], JSON.stringify(axis));
    assert.ok(axis.max - axis.min < 9 * 86400, JSON.stringify(axis));
    await assertFitsPhone(page);

    // A custom range: the one day 10 days ago.
    const tenDaysAgo = isoDay(daysAgo(10));
    await page.getByLabel('From', { exact: true }).fill(tenDaysAgo);
    await page.getByLabel('To', { exact: true }).fill(tenDaysAgo);
    await page.getByRole('button', { name: 'Show range' }).click();
    await page.waitForURL(new RegExp(`from=${tenDaysAgo}&to=${tenDaysAgo}`));
    assert.equal(await total(page), 4);
    assert.match(
      await page.locator('#range-shown').innerText(),
      new RegExp(String(Number(tenDaysAgo.slice(8)))),
    );
    await assertFitsPhone(page);
    if (SHOTS)
      await page.screenshot({ path: path.join(SHOTS, 'console-agent-site-range.png'), fullPage: true });

    // Click-to-filter: back to 30 days, then an agent, then a page; a chip removes its filter.
    await ranges.getByRole('link', { name: '30 days' }).click();
    await page.waitForURL(/range=30d/);
    await page.locator('#table-agents').getByRole('link', { name: 'GPTBot' }).click();
    await page.waitForURL(/agent=GPTBot/);
    assert.equal(await total(page), 3);
    const chips = page.getByRole('list', { name: 'Filters' });
    assert.match(await chips.innerText(), /Agent: GPTBot/);
    await page.locator('#table-pages').getByRole('link', { name: '/pricing' }).click();
    await page.waitForURL(/page=%2Fpricing/);
    assert.equal(await total(page), 3);
    assert.match(await chips.innerText(), /Page: \/pricing/);
    await assertFitsPhone(page);
    if (SHOTS)
      await page.screenshot({ path: path.join(SHOTS, 'console-agent-site-filtered.png'), fullPage: true });
    await chips.getByRole('link', { name: 'Remove the filter agent GPTBot' }).click();
    await page.waitForURL((u) => !u.search.includes('agent='));
    assert.equal(await total(page), 7);
    assert.deepEqual(
      await page.locator('#table-referrers tbody tr th').allInnerTexts(),
      ['OpenAI'],
      'only referrals to /pricing',
    );
    await ctx.close();
  });
});
