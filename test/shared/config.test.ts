import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig, MAX_TIMER_MS } from '../../shared/config.ts';

const refusal = (env: NodeJS.ProcessEnv): string => {
  try {
    loadConfig(env);
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    return err.message;
  }
  assert.fail(`accepted ${JSON.stringify(env)}`);
};

describe('numeric settings', () => {
  it('an empty number is a start-up error naming the setting, never 0', () => {
    for (const name of ['PORT', 'WORKER_CONCURRENCY', 'SCAN_RETENTION_DAYS', 'GEO_CALL_TIMEOUT_MS']) {
      const message = refusal({ [name]: '' });
      assert.match(message, new RegExp(`${name}: is empty`));
    }
    assert.match(refusal({ PORT: '   ' }), /PORT: is empty/);
  });

  it('unset numbers take their defaults; set ones are read', () => {
    const c = loadConfig({});
    assert.equal(c.PORT, 3000);
    assert.equal(c.GEO_CALL_TIMEOUT_MS, 90_000);
    assert.equal(loadConfig({ PORT: ' 8080 ' }).PORT, 8080);
    assert.equal(loadConfig({ PORT: '0' }).PORT, 0);
  });

  it('refuses what is not a whole number, and out of range values', () => {
    assert.match(refusal({ PORT: '80a' }), /PORT: must be a whole number/);
    assert.match(refusal({ PORT: '1.5' }), /PORT: must be a whole number/);
    assert.match(refusal({ PORT: '65536' }), /PORT:/);
    assert.match(refusal({ WORKER_CONCURRENCY: '0' }), /WORKER_CONCURRENCY:/);
  });

  it('a timer above 2^31-1 ms (which setTimeout fires at once) is a start-up error', () => {
    for (const name of [
      'WORKER_SHUTDOWN_TIMEOUT_MS',
      'SCAN_FULL_DEADLINE_MS',
      'SCAN_QUICK_DEADLINE_MS',
      'AUDIT_CRAWL_BUDGET_MS',
      'GEO_CALL_TIMEOUT_MS',
      'GEO_RUN_DEADLINE_MS',
      'GEO_RETRY_BASE_MS',
    ]) {
      assert.equal(loadConfig({ [name]: String(MAX_TIMER_MS) })[name as 'PORT'], MAX_TIMER_MS);
      assert.match(
        refusal({ [name]: String(MAX_TIMER_MS + 1) }),
        new RegExp(`${name}: must be at most ${MAX_TIMER_MS} ms`),
      );
    }
  });
});
