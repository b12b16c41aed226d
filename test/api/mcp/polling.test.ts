import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// Long scans over MCP: with the wait bound at zero every scan outlasts it, so the tool answers
// with the scan id and how to poll; calling the tool again (or the poll path) collects the result.

let site: FixtureServer;
let t: TestStack;
const clients: Client[] = [];

before(async () => {
  site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`, SCAN_WAIT_MS: '0' });
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
  await site.close();
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  clients.push(client);
  await client.listTools(); // so the SDK checks every result against the tool's outputSchema
  return client;
}

// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
type Answer = { body: any; text: string };

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<Answer> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  const text = res.content.find((c) => c.type === 'text');
  return { body: res.structuredContent, text: text?.type === 'text' ? text.text : '' };
}

const isPending = (a: Answer) => typeof a.body.poll === 'string';

/** The first answer must be the pending one; then calls the tool again until the result is in. */
async function pendingThenDone(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  view: string,
  key?: string,
) {
  const first = await callTool(client, name, args);
  assert.ok(isPending(first), `expected a pending answer: ${JSON.stringify(first.body)}`);
  assert.match(first.body.id, /^sc_/);
  assert.ok(['queued', 'running'].includes(first.body.status));
  assert.equal(first.body.poll, `/api/v1/scans/${first.body.id}?view=${view}`);
  assert.match(first.text, new RegExp(`Call ${name} again with the same arguments`));
  assert.ok(first.text.includes(first.body.poll));

  const until = Date.now() + 60_000;
  let answer = first;
  while (isPending(answer)) {
    assert.equal(answer.body.id, first.body.id, 'calling again joins the same scan');
    assert.ok(Date.now() < until, 'scan did not finish');
    await new Promise((r) => setTimeout(r, 250));
    answer = await callTool(client, name, args);
  }
  const polled = await call(t.url, first.body.poll, { key });
  assert.equal(polled.status, 200);
  assert.deepEqual(answer.body, polled.body);
  return { first, done: answer };
}

describe('scans that outlast the wait', () => {
  it('A scan_website returns the scan id and how to poll, then the result', async () => {
    const key = await t.newKey('A', 'agent');
    const client = await connect(key);
    const { first, done } = await pendingThenDone(
      client,
      'scan_website',
      // (not /docs/: that folder has no index and answers 404, an error page the A view refuses)
      { url: `${site.origin}/index.html?for=a`, mode: 'quick' },
      'a',
      key,
    );
    assert.equal(done.body.scanId, first.body.id);
    assert.equal(done.body.dimensions.length, 7);
  });

  it('B scan_website and get_citability_score do the same in their own views', async () => {
    const client = await connect(await t.newKey('B', 'optimisation'));
    const scan = await pendingThenDone(client, 'scan_website', { url: site.origin, mode: 'quick' }, 'b');
    assert.equal(scan.done.body.methodologyVersion, '2.0.1');
    const cite = await pendingThenDone(
      client,
      'get_citability_score',
      { url: `${site.origin}/index.html` },
      'citability',
    );
    assert.equal(typeof cite.done.body.overall, 'number');
  });
});
