import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { registerSite } from '../../shared/agent-sites/sites.ts';
import { importLog } from '../../shared/agent-traffic/import.ts';
import { LOG_FORMATS } from '../../shared/agent-traffic/log-formats.ts';
import { createDb, type Db } from '../../shared/db/pool.ts';
import { writeLog } from '../helpers/access-log-gen.ts';
import { offlineVerifier as verifier } from '../helpers/agent-traffic.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

// The slow must-show (runs with `npm run test:corpus`): a generated access log of 1,000,000 lines
// in each supported format (gzipped for the JSON formats), imported twice; the second import
// stores nothing new. ACCESS_LOG_LINES overrides the size (e.g. for a quick look).
const LINES = Number(process.env.ACCESS_LOG_LINES ?? 1_000_000);
const ONLY = process.env.ACCESS_LOG_FORMATS?.split(',');

let database: TestDatabase;
let handle: Db;
let dir: string;
let accountId: string;

describe(`generated ${LINES.toLocaleString('en')}-line access logs`, () => {
  before(async () => {
    database = await createTestDatabase();
    handle = createDb(database.url, { max: 4 });
    dir = mkdtempSync(path.join(os.tmpdir(), 'sightline-million-'));
    const { account } = await createAccount(handle.db, {
      email: 'million@example.test',
      variant: 'B',
      tier: 'optimisation',
      plan: null,
      rateLimit: null,
    });
    accountId = account.id;
  });
  after(async () => {
    await handle?.close();
    await database?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  for (const format of LOG_FORMATS.filter((f) => !ONLY || ONLY.includes(f))) {
    it(`${format}: imported twice, the second import stores nothing new`, async () => {
      const gzip = format === 'json' || format === 'cloudflare' || format === 'vercel';
      const file = path.join(dir, `${format}.log${gzip ? '.gz' : ''}`);
      await writeLog(file, format, { lines: LINES, days: 30, gzip });
      const { site } = await registerSite(handle.db, {
        accountId,
        url: `https://${format}.million.example.com/`,
      });
      const first = await importLog(handle.db, site, file, { format: 'auto', verifier, retentionDays: null });
      assert.equal(first.format, format);
      assert.equal(first.lines, LINES + (format === 'cloudfront' ? 2 : 0));
      assert.equal(first.badLines, 0);
      if (format !== 'common') assert.equal(first.stored, first.agents);
      const second = await importLog(handle.db, site, file, { format, verifier, retentionDays: null });
      assert.equal(second.stored, 0);
      assert.equal(second.duplicates, first.agents);
      console.log(
        `${format}: ${first.lines} lines, ${first.agents} agents; first import ${first.seconds} s ` +
          `(${Math.round(first.lines / first.seconds)} lines/s), second ${second.seconds} s ` +
          `(${Math.round(second.lines / second.seconds)} lines/s), stored ${second.stored} new`,
      );
      rmSync(file);
    });
  }
});
