import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { createAccount } from '../../../shared/accounts/accounts.ts';
import { createDb, type Db } from '../../../shared/db/pool.ts';
import { createUrlPolicy } from '../../../shared/net/url-policy.ts';
import {
  accountWebhookSecret,
  deliverWebhook,
  settleStaleDeliveries,
} from '../../../shared/webhooks/deliver.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

// The outbound webhook module against real receivers on 127.0.0.1 and a real database.

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let db: TestDatabase;
let handle: Db;
let receiver: http.Server;
let port: number;
let canary: http.Server;
let canaryPort: number;
let canaryHits = 0;
const received: Received[] = [];
let accountId: string;

const listen = async (server: http.Server) => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return (server.address() as AddressInfo).port;
};

before(async () => {
  db = await createTestDatabase();
  handle = createDb(db.url);
  canary = http.createServer((_req, res) => {
    canaryHits++;
    res.end();
  });
  canaryPort = await listen(canary);
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ path: req.url ?? '', headers: req.headers, body });
      if (req.url === '/ok') res.writeHead(204).end();
      else if (req.url === '/redirect') res.writeHead(302, { location: `http://127.0.0.1:${port}/ok` }).end();
      else if (req.url === '/error') res.writeHead(500).end('broken');
      else if (req.url === '/hang') setTimeout(() => res.writeHead(200).end(), 15_000).unref();
      else res.writeHead(404).end();
    });
  });
  port = await listen(receiver);
  ({
    account: { id: accountId },
  } = await createAccount(handle.db, { email: 'hooks@example.test', variant: 'A', tier: 'agent' }));
});
after(async () => {
  receiver.closeAllConnections();
  receiver.close();
  canary.close();
  await handle.close();
  await db.drop();
});

const policy = () => createUrlPolicy(`127.0.0.1:${port}`);
const hits = (path: string) => received.filter((r) => r.path === path).length;
const deliver = (path: string, extra: { dedupeKey?: string; url?: string } = {}) =>
  deliverWebhook(handle.db, {
    accountId,
    url: extra.url ?? `http://127.0.0.1:${port}${path}`,
    event: 'monitoring.alert',
    payload: { event: 'monitoring.alert', site: 'https://example.test/', delta: -12 },
    policy: policy(),
    subject: 'site:1',
    dedupeKey: extra.dedupeKey,
  });
const row = (id: string) =>
  handle.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('deliverWebhook', () => {
  it('POSTs JSON signed per Standard Webhooks with X-Service-Event, and records the attempt', async () => {
    const attempt = await deliver('/ok');
    assert.equal(attempt.status, 'delivered');
    assert.equal(attempt.httpStatus, 204);
    assert.equal(attempt.sent, true);
    assert.ok(attempt.latencyMs !== null && attempt.latencyMs >= 0);
    const got = received.find((r) => r.headers['webhook-id'] === attempt.id);
    assert.ok(got, 'the receiver got it');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['x-service-event'], 'monitoring.alert');
    assert.doesNotMatch(got.headers['user-agent'] ?? '', /sightline/i, 'no vendor branding');
    const secret = await accountWebhookSecret(handle.db, accountId);
    assert.match(secret, /^whsec_/);
    const verified = new Webhook(secret).verify(got.body, {
      'webhook-id': String(got.headers['webhook-id']),
      'webhook-timestamp': String(got.headers['webhook-timestamp']),
      'webhook-signature': String(got.headers['webhook-signature']),
    });
    assert.deepEqual(verified, { event: 'monitoring.alert', site: 'https://example.test/', delta: -12 });
    const r = await row(attempt.id);
    assert.equal(r.status, 'delivered');
    assert.equal(r.http_status, 204);
    assert.equal(r.event, 'monitoring.alert');
    assert.equal(r.subject, 'site:1');
    assert.equal(r.url, `http://127.0.0.1:${port}/ok`);
    assert.ok(r.finished_at);
  });

  it('one secret per account, made once even when asked for at the same moment', async () => {
    const { account } = await createAccount(handle.db, {
      email: 'race@example.test',
      variant: 'B',
      tier: 'optimisation',
    });
    const secrets = await Promise.all(
      Array.from({ length: 6 }, () => accountWebhookSecret(handle.db, account.id)),
    );
    assert.equal(new Set(secrets).size, 1);
    assert.notEqual(secrets[0], await accountWebhookSecret(handle.db, accountId));
  });

  it('a receiver that redirects is recorded as failed; the redirect is not followed or retried', async () => {
    const okBefore = hits('/ok');
    const attempt = await deliver('/redirect');
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.httpStatus, 302);
    assert.match(attempt.error ?? '', /redirects are not followed/);
    assert.equal(hits('/redirect'), 1);
    assert.equal(hits('/ok'), okBefore, 'the redirect target was not called');
  });

  it('a receiver that answers 500 is recorded as failed, with one attempt', async () => {
    const attempt = await deliver('/error');
    assert.equal(attempt.status, 'failed');
    assert.equal(attempt.httpStatus, 500);
    assert.equal(attempt.error, 'HTTP 500');
    assert.equal(hits('/error'), 1);
    assert.equal((await row(attempt.id)).status, 'failed');
  });

  it('refuses addresses outside the policy without connecting, and records why', async () => {
    for (const url of [`http://127.0.0.1:${canaryPort}/hook`, 'http://169.254.169.254/latest/meta-data']) {
      const attempt = await deliver('', { url });
      assert.equal(attempt.status, 'failed', url);
      assert.equal(attempt.httpStatus, null);
      assert.match(attempt.error ?? '', /^url_not_allowed/, url);
    }
    assert.equal(canaryHits, 0);
  });

  it('gives up after 10 seconds on a receiver that does not answer', async () => {
    const attempt = await deliver('/hang');
    assert.equal(attempt.status, 'failed');
    assert.match(attempt.error ?? '', /timeout/);
    assert.equal(hits('/hang'), 1);
  });

  it('with a dedupe key: one attempt per key, even after a crash left it pending', async () => {
    const first = await deliver('/ok', { dedupeKey: 'alert:1' });
    const okAfterFirst = hits('/ok');
    const again = await deliver('/ok', { dedupeKey: 'alert:1' });
    assert.equal(again.id, first.id);
    assert.equal(again.sent, false);
    assert.equal(hits('/ok'), okAfterFirst, 'nothing sent the second time');

    // A worker died mid-attempt a while ago: the outcome is unknown, and it is not repeated.
    await sql`insert into webhook_deliveries (id, account_id, event, url, dedupe_key, payload, created_at)
      values ('msg_crashed', ${accountId}, 'monitoring.alert', ${`http://127.0.0.1:${port}/ok`}, 'alert:2', '{}', now() - interval '5 minutes')`.execute(
      handle.db,
    );
    const settled = await deliver('/ok', { dedupeKey: 'alert:2' });
    assert.equal(settled.id, 'msg_crashed');
    assert.equal(settled.status, 'failed');
    assert.match(settled.error ?? '', /interrupted/);
    assert.equal(hits('/ok'), okAfterFirst);
  });
});

describe('stale pending attempts', () => {
  it('are settled as failed with an unknown outcome and never sent again; recent ones are left alone', async () => {
    const before = received.length;
    await sql`insert into webhook_deliveries (id, account_id, event, url, payload, created_at)
      values ('msg_stale', ${accountId}, 'audit.completed', ${`http://127.0.0.1:${port}/ok`}, '{}', now() - interval '10 minutes'),
             ('msg_fresh', ${accountId}, 'audit.completed', ${`http://127.0.0.1:${port}/ok`}, '{}', now())`.execute(
      handle.db,
    );
    assert.ok((await settleStaleDeliveries(handle.db)) >= 1);
    const rows = await handle.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'status', 'error', 'finished_at'])
      .where('id', 'in', ['msg_stale', 'msg_fresh'])
      .orderBy('id')
      .execute();
    assert.equal(rows[0]!.id, 'msg_fresh');
    assert.equal(rows[0]!.status, 'pending');
    assert.equal(rows[1]!.status, 'failed');
    assert.match(rows[1]!.error ?? '', /outcome is unknown/);
    assert.ok(rows[1]!.finished_at);
    assert.equal(received.length, before, 'nothing was sent');
    assert.equal(await settleStaleDeliveries(handle.db), 0, 'idempotent');
  });
});
