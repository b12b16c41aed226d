import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findChromium } from '../../worker/browser/chromium.ts';
import { environHas, listProcesses } from '../../worker/browser/processes.ts';
import { skipUnlessBrowser } from '../helpers/browser.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';
import { BIN } from '../helpers/processes.ts';

// `sightline scan --mode full` (issue 17): when the command exits, nothing it started is left:
// no member of its process group, no Chromium or Lighthouse process (found by an environment
// marker the processes inherit, or by the private TMPDIR their profiles live in).

const skip = skipUnlessBrowser(findChromium());

describe('sightline scan --mode full leaves no process behind', { skip }, () => {
  let site: FixtureServer;
  let tmp: string;

  before(async () => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'sightline-cli-procs-'));
    site = await startFixtureServer({
      routes: {
        '/': (_req, res) => {
          res
            .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
            .end(
              '<!doctype html><html lang="en"><head><title>Hello</title><meta name="viewport" content="width=device-width"></head><body><main><h1>Hello</h1><p>Some text to read.</p></main></body></html>',
            );
        },
      },
    });
  });
  after(async () => {
    await site?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('exits 0 with the scan done, and no process of its group, its marker or its TMPDIR lives on', async () => {
    const marker = `SIGHTLINE_PROC_MARKER=${randomBytes(6).toString('hex')}`;
    const [k, v] = marker.split('=') as [string, string];
    const child = spawn(
      process.execPath,
      // --allow-partial: this test is about what the command leaves behind, also on a loaded machine
      // where the render can miss its deadline.
      [
        BIN,
        'scan',
        '--mode',
        'full',
        site.url,
        '--allow-host',
        `127.0.0.1:${site.port}`,
        '--allow-partial',
        '--json',
      ],
      {
        detached: true, // its own process group, as a shell gives a command
        env: { ...process.env, [k]: v, TMPDIR: tmp },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout!.on('data', (b) => (out += b));
    child.stderr!.on('data', (b) => (err += b));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 0, err);
    const report = JSON.parse(out) as { mode: string; artifacts: Record<string, unknown> };
    assert.equal(report.mode, 'full');
    assert.ok(report.artifacts.Lighthouse, 'Lighthouse ran');
    assert.ok(report.artifacts.Rendered, 'the browser rendered the page');

    const ours = () =>
      listProcesses().filter(
        (p) =>
          p.state !== 'Z' && (p.pgid === child.pid || p.cmdline.includes(tmp) || environHas(p.pid, marker)),
      );
    // Sampled at once: a process still alive now was left behind by the command.
    assert.deepEqual(
      ours().map((p) => p.cmdline.slice(0, 120)),
      [],
    );
  });
});
