import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type FixtureServer, startFixtureServer } from '../../helpers/fixture-server.ts';
import { startTestStack, type TestStack } from '../../helpers/stack.ts';

// The MCP Inspector's CLI mode against a running server, through the script CI and developers
// use (scripts/mcp-inspector-check.mjs): it lists the tools, calls them and sees -32001 keyless.

let site: FixtureServer;
let t: TestStack;

before(async () => {
  site = await startFixtureServer({ root: path.resolve('test/fixtures/sites/quick-site') });
  t = await startTestStack({ SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
});
after(async () => {
  await t.close();
  await site.close();
});

function runCheck(key: string): Promise<{ code: number; out: string }> {
  const args = [
    'scripts/mcp-inspector-check.mjs',
    '--url',
    `${t.url}/mcp`,
    '--key',
    key,
    '--scan',
    site.origin,
  ];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { timeout: 300_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? Number(err.code ?? 1) : 0, out: stdout + stderr });
    });
  });
}

describe('MCP Inspector CLI', () => {
  it('lists and calls the variant A tools with an A key', async () => {
    const { code, out } = await runCheck(await t.newKey('A', 'free'));
    assert.equal(code, 0, out);
    assert.match(out, /ok {3}tools\/list shows the A tools/);
    assert.match(out, /ok {3}list_audit_products lists 7 products/);
    assert.match(out, /ok {3}scan_website returns a result or how to poll/);
    assert.match(out, /ok {3}a keyless tools\/call is refused with -32001/);
  });

  it('lists and calls the variant B tools with a B key', async () => {
    const { code, out } = await runCheck(await t.newKey('B', 'intelligence'));
    assert.equal(code, 0, out);
    assert.match(out, /ok {3}tools\/list shows the B tools/);
    assert.match(out, /ok {3}get_citability_score returns a score or how to poll/);
  });
});
