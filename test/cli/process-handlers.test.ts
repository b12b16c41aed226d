import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';

// The long-running commands' process handlers (cli/process-handlers.ts), in a process of their own:
// an unhandled rejection is logged and the process goes on; an uncaught exception is logged and
// ends it with code 1.

function runWithHandlers(body: string): Promise<{ code: number | null; out: string }> {
  const here = (p: string) => JSON.stringify(path.resolve(p));
  const script = `
    import { installProcessHandlers } from ${here('cli/process-handlers.ts')};
    import { createLogger } from ${here('shared/logger.ts')};
    installProcessHandlers(createLogger('test', undefined, 'info'));
    ${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (out += b));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

describe('process handlers of the long-running commands', () => {
  it('log an unhandled rejection and keep the process running', async () => {
    const { code, out } = await runWithHandlers(`
      Promise.reject(new Error('nobody handles this'));
      setTimeout(() => console.log('still running'), 300);`);
    assert.equal(code, 0, out);
    const line = JSON.parse(out.split('\n').find((l) => l.includes('unhandled promise rejection'))!);
    assert.equal(line.level, 50);
    assert.equal(line.err.message, 'nobody handles this');
    assert.match(out, /still running/);
  });

  it('log an uncaught exception and exit with code 1', async () => {
    const { code, out } = await runWithHandlers(
      `setTimeout(() => { throw new Error('broken state'); }, 10);`,
    );
    assert.equal(code, 1);
    const line = JSON.parse(out.split('\n').find((l) => l.includes('uncaught exception'))!);
    assert.equal(line.level, 60);
    assert.equal(line.err.message, 'broken state');
  });
});
