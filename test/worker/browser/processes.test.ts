import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { describe, it } from 'node:test';
import {
  autogroupOf,
  BACKGROUND_NICE,
  findProcesses,
  groupMembers,
  killGroupAndWait,
  lowerAutogroup,
  lowerPriority,
} from '../../../worker/browser/processes.ts';

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

  it('lower the priority of a whole group, and processes it starts later inherit it', async () => {
    // A leader with one child now and one made after the call, like a browser's zygote forking
    // renderers later.
    const leader = spawn('sh', ['-c', 'sleep 60 & read go; sleep 60 & wait'], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    const pgid = leader.pid!;
    try {
      const until = Date.now() + 5000;
      while (groupMembers(pgid).length < 2 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      assert.equal(getPriority(pgid), 0, 'started at the default priority');
      await lowerPriority(new Set([pgid]));
      for (const p of groupMembers(pgid)) assert.equal(getPriority(p.pid), BACKGROUND_NICE, `pid ${p.pid}`);
      leader.stdin!.write('go\n');
      while (groupMembers(pgid).length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      const members = groupMembers(pgid);
      assert.equal(members.length, 3, 'the later child is there');
      for (const p of members) assert.equal(getPriority(p.pid), BACKGROUND_NICE, `pid ${p.pid}`);
    } finally {
      await killGroupAndWait(pgid);
    }
  });

  it("lower a detached group's scheduler autogroup, and never the caller's own", {
    skip: !autogroupOf('self') && 'the kernel groups no sessions (no /proc/self/autogroup)',
  }, async () => {
    const own = autogroupOf('self')!;
    // Detached: a session, so an autogroup, of its own, like the pool's Chromium.
    const detached = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    // Not detached: it shares our session and autogroup, which must keep its weight.
    const attached = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      const theirs = autogroupOf(detached.pid!)!;
      assert.notEqual(theirs.name, own.name);
      assert.equal(theirs.nice, 0, 'a new session starts at autogroup nice 0');
      await lowerPriority(new Set([detached.pid!]));
      assert.deepEqual(autogroupOf(detached.pid!), { name: theirs.name, nice: BACKGROUND_NICE });

      assert.equal(lowerAutogroup(attached.pid!), false);
      assert.deepEqual(autogroupOf('self'), own, "the caller's autogroup is untouched");
    } finally {
      detached.kill('SIGKILL');
      attached.kill('SIGKILL');
    }
  });
});
