import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, McpError } from '@modelcontextprotocol/sdk/types.js';
import { revokeKeys } from '../../../shared/accounts/accounts.ts';
import { displayPrefix, generateKey } from '../../../shared/accounts/keys.ts';
import { call } from '../../helpers/api.ts';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { SpecChecker } from '../../helpers/openapi.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The MCP endpoint driven by the SDK's own Client over StreamableHTTPClientTransport: tools as
// each variant's keys see them, every tool against a fixture site (its structured content
// compared with the REST answer for the same request), and every JSON-RPC error code.

const BASE = 'https://api.sightline.test';
const SITE = 'https://sightline.test';
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

let site: FixtureServer;
let t: TestStack;
let spec: SpecChecker;
const clients: Client[] = [];

before(async () => {
  site = await startFixtureServer({
    root: path.resolve('test/fixtures/sites/quick-site'),
    routes: { '/hang-up': (req) => req.socket.destroy() },
  });
  t = await startTestStack({
    SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}`,
    PUBLIC_BASE_URL: BASE,
    PUBLIC_SITE_URL: SITE,
    // Audits crawl a few pages in quick mode only: no browser needed here.
    AUDIT_MAX_PAGES: '3',
    AUDIT_FULL_PAGES: '0',
  });
  spec = await SpecChecker.load(t.url);
});
after(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await t.close();
  await site.close();
});

async function connect(key?: string): Promise<Client> {
  const client = new Client({ name: 'sightline-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
    requestInit: { headers: key ? { authorization: `Bearer ${key}` } : {} },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A connected client that has listed its tools, so the SDK checks every result against its outputSchema. */
async function connectListed(key?: string): Promise<Client> {
  const client = await connect(key);
  await client.listTools();
  return client;
}

async function callOk(client: Client, name: string, args: Record<string, unknown> = {}) {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  assert.ok(res.structuredContent, `${name} returns structured content`);
  const text = res.content.find((c) => c.type === 'text');
  assert.ok(text && text.type === 'text' && text.text.length > 0, `${name} has a text summary`);
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON
  return { body: res.structuredContent as any, text: text.text };
}

async function rpcError(promise: Promise<unknown>, code: number): Promise<McpError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof McpError, `expected an McpError, got ${err}`);
    assert.equal(err.code, code, err.message);
    return err;
  }
  assert.fail(`expected JSON-RPC error ${code}`);
}

const fieldsOf = (err: McpError) =>
  ((err.data as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);

const rawRpc = (body: unknown, key?: string) =>
  call(t.url, '/mcp', { method: 'POST', body, key, headers: MCP_ACCEPT });

describe('discovery', () => {
  it('GET /mcp is the discovery record; an SSE GET is 405', async () => {
    const res = await call(t.url, '/mcp');
    assert.equal(res.status, 200);
    spec.check('GET', '/mcp', res);
    assert.deepEqual(res.body, {
      name: 'sightline',
      version: '1.0.0',
      description: res.body.description,
      endpoint: `${BASE}/mcp`,
      protocol: 'jsonrpc-2.0',
    });
    assert.ok(res.headers.get('x-ratelimit-limit'));

    const sse = await call(t.url, '/mcp', { headers: { accept: 'text/event-stream' } });
    assert.equal(sse.status, 405);
    spec.check('GET', '/mcp', sse);
    assert.equal(sse.body.error.code, -32000);
  });

  it('/.well-known/mcp.json and /.well-known/agent.json point at the endpoint and list both variants’ tools', async () => {
    const card = await call(t.url, '/.well-known/mcp.json');
    assert.equal(card.status, 200);
    spec.check('GET', '/.well-known/mcp.json', card);
    assert.equal(card.body.endpoint, `${BASE}/mcp`);
    assert.equal(card.body.remotes[0].url, `${BASE}/mcp`);
    assert.deepEqual(
      card.body.tools.map((x: { variant: string; name: string }) => `${x.variant}:${x.name}`),
      [
        'A:scan_website',
        'A:list_audit_products',
        'A:place_audit_order',
        'A:get_audit_status',
        'A:geo_check',
        'A:run_visibility',
        'A:run_share_of_voice',
        'A:list_geo_prompts',
        'A:add_geo_prompt',
        'B:scan_website',
        'B:get_citability_score',
      ],
    );
    const agent = await call(t.url, '/.well-known/agent.json');
    assert.equal(agent.status, 200);
    spec.check('GET', '/.well-known/agent.json', agent);
    assert.equal(agent.body.url, SITE);
    const mcp = agent.body.interfaces.find((i: { type: string }) => i.type === 'mcp');
    assert.equal(mcp.url, `${BASE}/mcp`);
    assert.equal(mcp.discovery, `${SITE}/.well-known/mcp.json`);
  });

  it('/openapi.json documents POST and GET /mcp', async () => {
    const res = await call(t.url, '/openapi.json');
    assert.ok(res.body.paths['/mcp'].post.requestBody);
    assert.ok(res.body.paths['/mcp'].get.responses['200']);
  });
});

describe('initialize and tools/list', () => {
  it('initialize needs no key and reports the server', async () => {
    const client = await connect();
    assert.deepEqual(
      { name: client.getServerVersion()?.name, version: client.getServerVersion()?.version },
      { name: 'sightline', version: '1.0.0' },
    );
    assert.match(client.getInstructions() ?? '', /Authorization: Bearer/);
    assert.ok(client.getServerCapabilities()?.tools);
  });

  it("lists A's tools without a key and for an A key, B's for a B key, each with input and output schemas", async () => {
    const names = async (key?: string) => (await (await connect(key)).listTools()).tools.map((x) => x.name);
    const a = [
      'scan_website',
      'list_audit_products',
      'place_audit_order',
      'get_audit_status',
      'geo_check',
      'run_visibility',
      'run_share_of_voice',
      'list_geo_prompts',
      'add_geo_prompt',
    ];
    assert.deepEqual(await names(), a);
    assert.deepEqual(await names(await t.newKey('A', 'free')), a);
    assert.deepEqual(await names(await t.newKey('B', 'intelligence')), [
      'scan_website',
      'get_citability_score',
    ]);

    const { tools } = await (await connect()).listTools();
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
    }
    const order = tools.find((x) => x.name === 'place_audit_order')!;
    assert.deepEqual(order.inputSchema.required, ['product', 'target_url']);
    assert.ok((order.inputSchema.properties as Record<string, unknown>).webhook_url);
  });

  it('initialize and tools/list are not counted against the key; every response carries the rate-limit headers', async () => {
    const key = await t.newKey('A', 'pro');
    const init = await rawRpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'raw', version: '0' },
        },
      },
      key,
    );
    assert.equal(init.status, 200);
    spec.check('POST', '/mcp', init);
    assert.equal(init.body.result.serverInfo.name, 'sightline');
    const list = await rawRpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, key);
    spec.check('POST', '/mcp', list);
    for (const res of [init, list]) {
      assert.equal(res.headers.get('x-ratelimit-limit'), '100');
      assert.equal(res.headers.get('x-ratelimit-remaining'), '100');
      assert.ok(Number(res.headers.get('x-ratelimit-reset')) > 0);
    }
    const calls = await rawRpc(
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_audit_products', arguments: {} } },
      key,
    );
    assert.equal(calls.status, 200);
    spec.check('POST', '/mcp', calls);
    assert.equal(calls.headers.get('x-ratelimit-remaining'), '99');
  });
});

describe('variant A tools against a fixture site', () => {
  it('scan_website: the same structured content as GET /api/v1/scan, with a summary', async () => {
    const key = await t.newKey('A', 'free');
    const client = await connectListed(key);
    const { body, text } = await callOk(client, 'scan_website', { url: site.origin, mode: 'quick' });
    assert.equal(body.url, `${site.origin}/`);
    assert.equal(body.dimensions.length, 7);
    assert.equal(body.recommendation, undefined);
    assert.match(text, new RegExp(`overall ${body.overallScore}/100`));
    const rest = await call(t.url, `/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick`, { key });
    assert.equal(rest.status, 200);
    assert.deepEqual(body, rest.body);

    const withRec = await callOk(client, 'scan_website', {
      url: site.origin,
      mode: 'quick',
      include_recommendation: true,
    });
    const restRec = await call(
      t.url,
      `/api/v1/scan?url=${encodeURIComponent(site.origin)}&mode=quick&include_recommendation=true`,
      { key },
    );
    assert.ok(withRec.body.recommendation);
    assert.deepEqual(withRec.body, restRec.body);
    assert.match(withRec.text, /Recommended: /);
  });

  it('list_audit_products: { products } holding the GET /api/v1/products array', async () => {
    const client = await connectListed(await t.newKey('A', 'free'));
    const { body, text } = await callOk(client, 'list_audit_products');
    const rest = await call(t.url, '/api/v1/products');
    assert.deepEqual(body, { products: rest.body });
    assert.equal(body.products.length, 7);
    assert.match(text, /seo_audit/);
  });

  it('place_audit_order and get_audit_status: the REST order, idempotent across MCP and REST, polled to delivery', async () => {
    const key = await t.newKey('A', 'pro');
    const client = await connectListed(key);
    const args = { product: 'seo_audit', target_url: site.origin, idempotency_key: 'mcp-order-1' };
    const placed = await callOk(client, 'place_audit_order', args);
    assert.equal(placed.body.status, 'paid');
    assert.equal(placed.body.product, 'seo_audit');
    assert.match(placed.text, /get_audit_status/);

    // The same Idempotency-Key over REST finds the order MCP placed, with the same body.
    const rest = await call(t.url, '/api/v1/audit', {
      method: 'POST',
      key,
      body: { product: 'seo_audit', target_url: site.origin },
      headers: { 'idempotency-key': 'mcp-order-1' },
    });
    assert.equal(rest.status, 201);
    assert.equal(rest.headers.get('idempotent-replayed'), 'true');
    // The worker may have moved the order on since: everything but the status is the same.
    assert.deepEqual({ ...placed.body, status: rest.body.status }, rest.body);
    const again = await callOk(client, 'place_audit_order', args);
    assert.equal(again.body.order_id, placed.body.order_id);

    const orderId = placed.body.order_id as string;
    const until = Date.now() + 120_000;
    let status = await callOk(client, 'get_audit_status', { order_id: orderId });
    while (status.body.status === 'paid' || status.body.status === 'generating') {
      assert.ok(Date.now() < until, `order still ${status.body.status}`);
      await new Promise((r) => setTimeout(r, 500));
      status = await callOk(client, 'get_audit_status', { order_id: orderId });
    }
    assert.equal(status.body.status, 'delivered', JSON.stringify(status.body));
    assert.ok(status.body.report_summary);
    assert.match(status.text, /was delivered/);
    const polled = await call(t.url, `/api/v1/audit/${orderId}`, { key });
    assert.deepEqual(status.body, polled.body);

    // Free keys may poll; another account's order is a tool error, not a protocol error.
    const other = await connectListed(await t.newKey('A', 'free'));
    const res = (await other.callTool({
      name: 'get_audit_status',
      arguments: { order_id: orderId },
    })) as CallToolResult;
    assert.equal(res.isError, true);
    assert.match(JSON.stringify(res.content), /not_found/);
  });
});

describe('variant B tools against a fixture site', () => {
  it('scan_website: the same structured content as POST /api/public/scan', async () => {
    const client = await connectListed(await t.newKey('B', 'intelligence'));
    const { body, text } = await callOk(client, 'scan_website', { url: site.origin, mode: 'quick' });
    assert.equal(body.methodologyVersion, '2.0.1');
    assert.deepEqual(
      body.dimensions.map((d: { id: string }) => d.id),
      ['structure', 'citability', 'discoverability', 'agent_interface', 'transactability'],
    );
    assert.match(text, /agent readability/);
    const rest = await call(t.url, '/api/public/scan', {
      method: 'POST',
      body: { url: site.origin, mode: 'quick' },
    });
    assert.equal(rest.status, 200);
    assert.deepEqual(body, rest.body);
  });

  it('get_citability_score: the same structured content as POST /api/tools/citability', async () => {
    const client = await connectListed(await t.newKey('B', 'optimisation'));
    const { body, text } = await callOk(client, 'get_citability_score', { url: site.origin });
    assert.ok(body.overall >= 0 && body.overall <= 100);
    assert.match(text, /citability/i);
    assert.equal(text.match(/\(grade [A-F]\)/g)?.length, 1, `the score is said once: ${text}`);
    const rest = await call(t.url, '/api/tools/citability', { method: 'POST', body: { url: site.origin } });
    assert.equal(rest.status, 200);
    assert.deepEqual(body, rest.body);
  });
});

describe('JSON-RPC errors', () => {
  it('-32001: tools/call without a key, with a malformed, an unknown or a revoked key', async () => {
    const tryCall = async (key?: string) =>
      rpcError((await connect(key)).callTool({ name: 'list_audit_products', arguments: {} }), -32001);
    assert.match((await tryCall()).message, /Authorization: Bearer/);
    assert.match((await tryCall('sl_live_nope')).message, /not valid/);
    assert.match((await tryCall(generateKey('A').key)).message, /not valid/);
    const revoked = await t.newKey('A', 'agent');
    assert.equal(await revokeKeys(t.handle.db, displayPrefix(revoked)), 1);
    assert.match((await tryCall(revoked)).message, /revoked/);
  });

  it('-32002: place_audit_order with a free key', async () => {
    const client = await connect(await t.newKey('A', 'free'));
    const err = await rpcError(
      client.callTool({
        name: 'place_audit_order',
        arguments: { product: 'seo_audit', target_url: site.origin },
      }),
      -32002,
    );
    assert.match(err.message, /pro or agent/);
    assert.equal((err.data as { code: string }).code, 'tier_required');
  });

  it('-32602: bad arguments, naming the argument', async () => {
    const a = await connect(await t.newKey('A', 'pro'));
    assert.deepEqual(fieldsOf(await rpcError(a.callTool({ name: 'scan_website', arguments: {} }), -32602)), [
      'url',
    ]);
    assert.deepEqual(
      fieldsOf(
        await rpcError(
          a.callTool({ name: 'scan_website', arguments: { url: site.origin, urll: 'x' } }),
          -32602,
        ),
      ),
      ['urll'],
    );
    assert.deepEqual(
      fieldsOf(
        await rpcError(
          a.callTool({
            name: 'scan_website',
            arguments: { url: site.origin, include_recommendation: 'yes' },
          }),
          -32602,
        ),
      ),
      ['include_recommendation'],
    );
    const refused = await rpcError(
      a.callTool({ name: 'scan_website', arguments: { url: 'http://169.254.169.254/' } }),
      -32602,
    );
    assert.deepEqual(fieldsOf(refused), ['url']);
    assert.equal((refused.data as { code: string }).code, 'url_not_allowed');
    assert.deepEqual(
      fieldsOf(
        await rpcError(
          a.callTool({ name: 'place_audit_order', arguments: { product: 'nope', target_url: site.origin } }),
          -32602,
        ),
      ),
      ['product'],
    );
    assert.deepEqual(
      fieldsOf(
        await rpcError(
          a.callTool({
            name: 'place_audit_order',
            arguments: { product: 'seo_audit', target_url: 'http://10.0.0.1/' },
          }),
          -32602,
        ),
      ),
      ['target_url'],
    );
    // A tool of the other variant is unknown to this key.
    const unknown = await rpcError(
      a.callTool({ name: 'get_citability_score', arguments: { url: site.origin } }),
      -32602,
    );
    assert.deepEqual(fieldsOf(unknown), ['name']);
    const b = await connect(await t.newKey('B', 'intelligence'));
    await rpcError(b.callTool({ name: 'list_audit_products', arguments: {} }), -32602);
  });

  it('-32602 for a tools/call whose params are malformed: arguments not an object, or no tool name', async () => {
    const key = await t.newKey('A', 'agent');
    for (const params of [{ name: 'list_audit_products', arguments: 'x' }, { arguments: {} }]) {
      const raw = await rawRpc({ jsonrpc: '2.0', id: 5, method: 'tools/call', params }, key);
      assert.equal(raw.status, 200, raw.text);
      spec.check('POST', '/mcp', raw);
      assert.equal(raw.body.id, 5);
      assert.equal(raw.body.error.code, -32602, JSON.stringify(raw.body));
    }
  });

  it('-32029 with HTTP 429: MCP and REST calls share the key’s hourly budget', async () => {
    const key = await t.newKey('A', 'free', { rateLimit: 3 });
    const client = await connect(key);
    await client.callTool({ name: 'list_audit_products', arguments: {} });
    const rest = await call(t.url, '/api/v1/audit/ao_missing', { key });
    assert.equal(rest.status, 404);
    assert.equal(rest.headers.get('x-ratelimit-remaining'), '1');
    await client.callTool({ name: 'list_audit_products', arguments: {} });
    await assert.rejects(client.callTool({ name: 'list_audit_products', arguments: {} }), (err: unknown) => {
      assert.ok(err instanceof StreamableHTTPError);
      assert.equal(err.code, 429);
      return true;
    });
    const raw = await rawRpc(
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'list_audit_products', arguments: {} } },
      key,
    );
    assert.equal(raw.status, 429);
    spec.check('POST', '/mcp', raw);
    assert.equal(raw.body.id, 9);
    assert.equal(raw.body.error.code, -32029);
    assert.equal(raw.body.error.data.code, 'rate_limited');
    assert.ok(Number(raw.headers.get('retry-after')) >= 1);
    assert.equal(raw.headers.get('x-ratelimit-limit'), '3');
    assert.equal(raw.headers.get('x-ratelimit-remaining'), '0');
    // Listing still works: it is not counted.
    assert.equal((await client.listTools()).tools.length, 9);
  });

  it('a site that cannot be fetched is a tool error the agent can read, not a protocol error', async () => {
    const client = await connectListed(await t.newKey('A', 'agent'));
    const res = (await client.callTool({
      name: 'scan_website',
      arguments: { url: `${site.origin}/hang-up`, mode: 'quick' },
    })) as CallToolResult;
    assert.equal(res.isError, true);
    assert.equal(res.structuredContent, undefined);
    assert.match(JSON.stringify(res.content), /site_unreachable/);
  });

  it('transport-level refusals: no Accept is 406, a body that is not JSON-RPC is 400, unknown methods are -32601', async () => {
    const noAccept = await call(t.url, '/mcp', {
      method: 'POST',
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    assert.equal(noAccept.status, 406);
    spec.check('POST', '/mcp', noAccept);
    const notRpc = await rawRpc({ hello: 'world' });
    assert.equal(notRpc.status, 400);
    spec.check('POST', '/mcp', notRpc);
    const unknown = await rawRpc({ jsonrpc: '2.0', id: 4, method: 'resources/list' });
    assert.equal(unknown.status, 200);
    assert.equal(unknown.body.error.code, -32601);
    const del = await call(t.url, '/mcp', { method: 'DELETE' });
    assert.equal(del.status, 405);
    const notification = await rawRpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.equal(notification.status, 202);
    spec.check('POST', '/mcp', notification);
    assert.equal(notification.text, '');
  });
});
