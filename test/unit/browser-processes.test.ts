import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { findProcesses, groupMembers, killGroupAndWait } from '../../worker/browser/processes.ts';

describe('process-group helpers', { skip: !existsSync('/proc/self/stat') && 'needs Linux /proc' }, () => {
  it('find a group by command line and kill every member of it', async () => {
    const marker = `sl-proc-test-${randomUUID()}`;
    // A shell leading its own group with two children, like a browser and its helpers.
    const leader = spawn('sh', ['-c', 'sleep 60 & sleep 60 & wait', marker], {
      detached: true,
      stdio: 'ignore',
    });
    const pgid = leader.pid!;
    const until = Date.now() + 5000;
    // Ready when the two children have exec'd sleep: until then a forked child still carries the
    // shell's command line (and so the marker).
    const ready = () =>
      groupMembers(pgid).filter((p) => p.pid !== pgid && p.cmdline.startsWith('sleep')).length === 2;
    while (!ready() && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.equal(groupMembers(pgid).length, 3);
    assert.deepEqual(
      findProcesses(marker).map((p) => p.pid),
      [pgid],
    );

    assert.equal(await killGroupAndWait(pgid), true);
    assert.equal(groupMembers(pgid).length, 0);
    assert.equal(findProcesses(marker).length, 0);
  });
});
