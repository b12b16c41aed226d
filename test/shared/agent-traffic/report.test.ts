import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../cli/main.ts';
import { reportLog } from '../../../shared/agent-traffic/report.ts';
import { agentIpRanges } from '../../../shared/agent-verification/ip-data.ts';
import { offlineVerifier as verifier } from '../../helpers/agent-traffic.ts';

// `sightline logs import --report`: a log of any age analysed into a report, nothing stored (no
// database). Verification judges each request at its own time: an address outside today's ranges
// in traffic from before the ranges were published reads "ranges have changed since", not
// spoofed; the same address in traffic after that date is spoofed.

const BINGBOT = 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)';
const GPTBOT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/128.0.0.0 Safari/537.36';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-report-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
function line(t: Date, ip: string, ua: string, p = '/', status = 200, referer = '-') {
  const d = `${String(t.getUTCDate()).padStart(2, '0')}/${MON[t.getUTCMonth()]}/${t.getUTCFullYear()}:${t.toISOString().slice(11, 19)} +0000`;
  return `${ip} - - [${d}] "GET ${p} HTTP/1.1" ${status} 100 "${referer}" "${ua}"`;
}

describe('logs import --report', () => {
  it('the ranges know when they were published', () => {
    const bing = agentIpRanges().asOf('bingbot');
    const gpt = agentIpRanges().asOf('GPTBot');
    assert.ok(bing && bing > new Date('2020-01-01'), `bing ranges as of ${bing}`);
    assert.ok(gpt && gpt > new Date('2020-01-01'), `GPTBot ranges as of ${gpt}`);
  });

  it("a 2015 log: addresses outside today's ranges read 'ranges have changed since', not spoofed", async () => {
    const old = new Date('2015-05-18T10:00:00Z');
    const recent = new Date(Date.now() - 86400_000);
    const lines = [
      ...Array.from({ length: 6 }, (_, i) =>
        line(new Date(old.getTime() + i * 1000), '157.56.92.151', BINGBOT, `/a${i % 2}`),
      ),
      ...Array.from({ length: 4 }, (_, i) =>
        line(new Date(old.getTime() + i * 1000), '203.0.113.9', GPTBOT, '/?flav=rss20'),
      ),
      line(recent, '203.0.113.9', GPTBOT, '/b'), // after the ranges' date: spoofed
      line(old, '66.249.66.1', GOOGLEBOT, '/c', 404), // inside Google's ranges
      line(old, '198.51.100.7', CHROME, '/', 200, 'https://chatgpt.com/'),
      line(old, '198.51.100.8', CHROME),
      line(old, '198.51.100.9', 'curl/8.5.0'),
    ];
    const file = path.join(dir, 'old.log');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const r = await reportLog(file, { format: 'auto', verifier });
    assert.equal(r.format, 'combined');
    assert.equal(r.requests, 15);
    assert.equal(r.agentVisits, 12);
    assert.deepEqual(r.verification, { ip: 1, none: 0, 'not-checked': 0, 'ranges-changed': 10, spoofed: 1 });
    assert.equal(r.aiReferrals, 1);
    assert.equal(r.humans, 1);
    assert.equal(r.otherBots, 1);
    assert.equal(r.from, old.toISOString());
    const bing = r.agents.find((a) => a.agent === 'bingbot')!;
    assert.equal(bing.visits, 6);
    assert.equal(bing.verification['ranges-changed'], 6);
    const google = r.agents.find((a) => a.agent === 'Googlebot')!;
    assert.equal(google.errors, 1);
    assert.deepEqual(r.topPages[0], { path: '/?flav=rss20', visits: 4 });

    // Through the CLI: no --site and no database needed, and it says nothing was stored.
    const out: string[] = [];
    const saved = process.env.DATABASE_URL;
    process.env.DATABASE_URL = 'postgres://nobody@127.0.0.1:1/none';
    try {
      const code = await main(['logs', 'import', '--report', file], {
        out: (l) => out.push(l),
        err: () => {},
      });
      assert.equal(code, 0);
    } finally {
      if (saved === undefined) delete process.env.DATABASE_URL;
      else process.env.DATABASE_URL = saved;
    }
    const text = out.join('\n');
    assert.match(text, /report only, nothing stored/);
    assert.match(text, /ranges have changed since 10/);
    assert.match(text, /spoofed 1/);
  });
});
