import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppError } from '../../../shared/errors.ts';
import { NetError } from '../../../shared/net/net-error.ts';
import {
  assertUrlAllowed,
  createUrlPolicy,
  normalizeTargetUrl,
  precheckUrl,
  type ResolvedAddress,
} from '../../../shared/net/url-policy.ts';

const code = (err: unknown) => (err instanceof AppError || err instanceof NetError ? err.code : String(err));

/** A resolver answering from a table, so no test depends on real DNS. */
const fakeDns = (table: Record<string, string[]>) => async (host: string) => {
  const answers = table[host];
  if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return answers.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('normalizeTargetUrl', () => {
  const ok: [string, string][] = [
    ['example.com', 'https://example.com/'],
    ['Example.COM/Path?q=1#frag', 'https://example.com/Path?q=1'],
    ['example.com:8080/x', 'https://example.com:8080/x'],
    ['//example.com/a', 'https://example.com/a'],
    ['  http://example.com  ', 'http://example.com/'],
    ['HTTPS://WWW.Example.com:443/', 'https://www.example.com/'],
    ['http://[2606:4700::1]/', 'http://[2606:4700::1]/'],
  ];
  for (const [input, expected] of ok) {
    it(`normalises ${JSON.stringify(input)}`, () => assert.equal(normalizeTargetUrl(input).href, expected));
  }

  const refused: [string, string][] = [
    ['file:///etc/passwd', 'url_not_allowed'],
    ['file:/etc/passwd', 'url_not_allowed'],
    ['javascript:alert(1)', 'url_not_allowed'],
    ['ftp://example.com/', 'url_not_allowed'],
    ['gopher://example.com/', 'url_not_allowed'],
    ['data:text/html,hi', 'url_not_allowed'],
    ['https://user:pass@example.com/', 'url_not_allowed'],
    ['https://user@example.com/', 'url_not_allowed'],
    ['', 'invalid_url'],
    ['   ', 'invalid_url'],
    ['not a url', 'invalid_url'],
    ['http://', 'invalid_url'],
    ['https://exa mple.com/', 'invalid_url'],
    ['???', 'invalid_url'],
    [`https://example.com/${'a'.repeat(2100)}`, 'invalid_url'],
  ];
  for (const [input, expected] of refused) {
    it(`refuses ${JSON.stringify(input.slice(0, 40))} with ${expected}`, () => {
      assert.throws(
        () => normalizeTargetUrl(input, 'query.url'),
        (err: unknown) => {
          assert.ok(err instanceof AppError);
          assert.equal(err.code, expected);
          assert.equal(err.status, 400);
          assert.deepEqual(
            err.extra.errors?.map((e) => e.field),
            ['query.url'],
          );
          return true;
        },
      );
    });
  }
});

describe('assertUrlAllowed', () => {
  const closed = createUrlPolicy('', { resolve: fakeDns({}) });
  const literals = [
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://0/',
    'http://0.0.0.0:8080/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::1]/',
    'http://[::]/',
    'HTTP://10.0.0.1/',
    'http://192.168.0.1/',
    'http://172.16.5.4/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.100.100.200/',
    'http://100.64.0.1/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://app.localhost/',
  ];
  for (const input of literals) {
    it(`refuses ${input}`, async () => {
      // The WHATWG parser canonicalises the legacy IPv4 forms before we look at them.
      const url = normalizeTargetUrl(input);
      await assert.rejects(assertUrlAllowed(url, closed), (err) => code(err) === 'url_not_allowed');
      assert.throws(
        () => precheckUrl(url, closed),
        (err) => code(err) === 'url_not_allowed',
      );
    });
  }

  it('refuses a public-looking name that resolves to loopback', async () => {
    const policy = createUrlPolicy('', { resolve: fakeDns({ 'innocent.example': ['127.0.0.1'] }) });
    const url = normalizeTargetUrl('innocent.example');
    precheckUrl(url, policy); // nothing to see without DNS
    await assert.rejects(assertUrlAllowed(url, policy), (err) => {
      assert.equal(code(err), 'url_not_allowed');
      assert.doesNotMatch((err as Error).message, /127\.0\.0\.1/, 'the internal answer is not revealed');
      return true;
    });
  });

  it('refuses when any one of several answers is private (v4 or v6)', async () => {
    const policy = createUrlPolicy('', {
      resolve: fakeDns({
        'mixed.example': ['93.184.215.14', '10.0.0.5'],
        'mixed6.example': ['2606:4700::1', 'fd00::1'],
      }),
    });
    await assert.rejects(
      assertUrlAllowed(new URL('https://mixed.example/'), policy),
      (e) => code(e) === 'url_not_allowed',
    );
    await assert.rejects(
      assertUrlAllowed(new URL('https://mixed6.example/'), policy),
      (e) => code(e) === 'url_not_allowed',
    );
  });

  it('returns every address of a public host', async () => {
    const policy = createUrlPolicy('', {
      resolve: fakeDns({ 'public.example': ['93.184.215.14', '2606:2800::1'] }),
    });
    assert.deepEqual(await assertUrlAllowed(new URL('https://public.example/'), policy), [
      '93.184.215.14',
      '2606:2800::1',
    ]);
  });

  it('reports a host that does not resolve as dns_failure, not a policy refusal', async () => {
    await assert.rejects(
      assertUrlAllowed(new URL('https://nothing.invalid/'), closed),
      (e) => code(e) === 'dns_failure',
    );
  });

  it('opens allowlisted hosts, host:port pairs and CIDRs, and nothing else', async () => {
    const policy = createUrlPolicy('127.0.0.1:8080,fixtures.test,10.0.0.0/8', {
      resolve: fakeDns({
        'fixtures.test': ['127.0.0.9'],
        'intranet.test': ['10.2.3.4'],
        'evil.test': ['127.0.0.1'],
      }),
    });
    assert.deepEqual(await assertUrlAllowed(new URL('http://127.0.0.1:8080/'), policy), ['127.0.0.1']);
    assert.deepEqual(await assertUrlAllowed(new URL('http://fixtures.test:1234/'), policy), ['127.0.0.9']);
    assert.deepEqual(await assertUrlAllowed(new URL('http://intranet.test/'), policy), ['10.2.3.4']);
    await assert.rejects(
      assertUrlAllowed(new URL('http://127.0.0.1:8081/'), policy),
      (e) => code(e) === 'url_not_allowed',
    );
    // Address entries open the address, whatever name leads there; other ports stay closed.
    assert.deepEqual(await assertUrlAllowed(new URL('http://evil.test:8080/'), policy), ['127.0.0.1']);
    await assert.rejects(
      assertUrlAllowed(new URL('http://evil.test:8081/'), policy),
      (e) => code(e) === 'url_not_allowed',
    );
    await assert.rejects(
      assertUrlAllowed(new URL('http://[::1]:8080/'), policy),
      (e) => code(e) === 'url_not_allowed',
    );
  });

  it('lets an allowlisted localhost name through the precheck', async () => {
    const policy = createUrlPolicy('localhost', { resolve: fakeDns({ localhost: ['127.0.0.1', '::1'] }) });
    assert.deepEqual(await assertUrlAllowed(new URL('http://localhost:3000/'), policy), ['127.0.0.1', '::1']);
  });
});
