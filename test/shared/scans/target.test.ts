import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { main } from '../../../cli/main.ts';
import { loadConfig, resetConfig } from '../../../shared/config.ts';
import { AppError } from '../../../shared/errors.ts';
import { createUrlPolicy, resolveTargetUrl, speaksTls } from '../../../shared/net/url-policy.ts';
import { type FixtureServer, selfSignedCert, startFixtureServer } from '../../helpers/fixture-server.ts';

// What a user types as a target: a bare host:port is tried over https, then http; and
// `sightline scan` of a private address says how to allow it, then scans it when allowed, with
// plain progress lines in a pipe and one updating line on a terminal.

let plain: FixtureServer;
let secure: FixtureServer;
let closedPort: number;

before(async () => {
  const root = path.resolve('test/fixtures/sites/quick-site');
  plain = await startFixtureServer({ root });
  secure = await startFixtureServer({ root, tls: selfSignedCert() });
  const probe = net.createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  closedPort = (probe.address() as net.AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
after(async () => {
  await plain?.close();
  await secure?.close();
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

describe('a bare host:port', () => {
  it('speaksTls: a TLS server (self-signed) yes; a plain HTTP server or a closed port no', async () => {
    assert.equal(await speaksTls('127.0.0.1', secure.port, '127.0.0.1'), true);
    assert.equal(await speaksTls('127.0.0.1', plain.port, '127.0.0.1'), false);
    assert.equal(await speaksTls('127.0.0.1', closedPort, '127.0.0.1'), false);
  });

  it('is scanned over https when it answers TLS, else over http; a scheme given is kept', async () => {
    const policy = createUrlPolicy(
      `127.0.0.1:${plain.port},127.0.0.1:${secure.port},127.0.0.1:${closedPort}`,
    );
    assert.equal(
      (await resolveTargetUrl(`127.0.0.1:${plain.port}`, policy)).href,
      `http://127.0.0.1:${plain.port}/`,
    );
    assert.equal(
      (await resolveTargetUrl(`127.0.0.1:${secure.port}/docs/`, policy)).href,
      `https://127.0.0.1:${secure.port}/docs/`,
    );
    assert.equal(
      (await resolveTargetUrl(`https://127.0.0.1:${plain.port}/`, policy)).href,
      `https://127.0.0.1:${plain.port}/`,
      'an explicit scheme is not second-guessed',
    );
    assert.equal((await resolveTargetUrl(`127.0.0.1:${closedPort}`, policy)).protocol, 'http:');
  });

  it('moves a bare host to port 80 only when port 80 is allowed too', async () => {
    // Port 443 allowed, 80 not: https does not answer on 127.0.0.1:443, and http is refused.
    const policy = createUrlPolicy('127.0.0.1:443');
    await assert.rejects(
      resolveTargetUrl('127.0.0.1', policy),
      (e) => e instanceof AppError && e.code === 'url_not_allowed',
    );
  });
});

describe('sightline scan', () => {
  before(() => {
    delete process.env.SCAN_ALLOW_HOSTS;
    resetConfig();
  });

  it('of a private address says how to allow it (--allow-host or SCAN_ALLOW_HOSTS)', async () => {
    const r = await cli('scan', `127.0.0.1:${plain.port}`);
    assert.equal(r.code, 1);
    const text = r.err.join('\n');
    assert.match(text, /url_not_allowed: 127\.0\.0\.1 is not a public address/);
    assert.ok(text.includes(`--allow-host 127.0.0.1:${plain.port}`), text);
    assert.ok(text.includes(`SCAN_ALLOW_HOSTS=127.0.0.1:${plain.port}`), text);
    assert.equal(r.out.length, 0);
  });

  it('with a malformed --allow-host (a URL, not a host) exits 2 with a usage message; a malformed SCAN_ALLOW_HOSTS stops start-up', async () => {
    const r = await cli('scan', `127.0.0.1:${plain.port}`, '--allow-host', `http://127.0.0.1:${plain.port}`);
    assert.equal(r.code, 2, r.err.join('\n'));
    assert.match(
      r.err.join('\n'),
      /--allow-host: bad CIDR "http:\/\/127\.0\.0\.1:\d+" \(host, host:port or CIDR/,
    );
    assert.throws(
      () => loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: 'http://127.0.0.1:8080' }),
      /Invalid configuration:\n {2}SCAN_ALLOW_HOSTS: bad CIDR "http:\/\/127\.0\.0\.1:8080"/,
    );
    assert.equal(
      loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: '127.0.0.1:8080,10.0.0.0/8' }).SCAN_ALLOW_HOSTS,
      '127.0.0.1:8080,10.0.0.0/8',
    );
  });

  it('with --allow-host scans it over http, printing one plain line per phase when not on a terminal', async () => {
    const r = await cli('scan', `127.0.0.1:${plain.port}`, '--allow-host', `127.0.0.1:${plain.port}`);
    assert.equal(r.code, 0, r.err.join('\n'));
    assert.match(
      r.err[0]!,
      new RegExp(`^\\[\\d+\\.\\ds\\] scanning http://127\\.0\\.0\\.1:${plain.port}/ \\(quick\\)$`),
    );
    const phases = r.err.slice(1).map((l) => l.replace(/^\[\d+\.\ds\] /, ''));
    assert.deepEqual(phases, ['fetch', 'score', 'done']);
    assert.ok(
      r.err.every((l) => !l.includes('\r') && !l.includes('\x1b')),
      'nothing redrawn',
    );
    assert.match(r.out.join('\n'), /site-audit .*: \d+\/100/);
  });

  it('on a terminal, shows the phase and time on one updating line', async () => {
    // `script` gives the command a pseudo-terminal, as a person running it would have.
    const command = `stty cols 120; node bin/sightline.js scan 127.0.0.1:${plain.port} --allow-host 127.0.0.1:${plain.port}`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { ...process.env, COLUMNS: '120', SCAN_ALLOW_HOSTS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d.toString();
    });
    const code = await new Promise<number | null>((r) => child.on('close', r));
    assert.equal(code, 0, output);
    const redraws = output.split('\r\x1b[K').filter(Boolean);
    assert.ok(redraws.length >= 3, output);
    const line = new RegExp(
      `^(starting|fetch|score) \\d+\\.\\ds · scanning http://127\\.0\\.0\\.1:${plain.port}/ \\(quick\\)$`,
    );
    const status = redraws.slice(0, -1);
    assert.ok(
      status.every((l) => line.test(l)),
      output,
    );
    assert.ok(
      status.some((l) => l.startsWith('fetch ')),
      output,
    );
    assert.match(output, /done \(\d+\.\ds\)/);
    assert.doesNotMatch(output, /^\[\d+\.\ds\] fetch/m, 'no plain phase lines on a terminal');
    assert.match(output, /site-audit .*: \d+\/100/);
  });
});
