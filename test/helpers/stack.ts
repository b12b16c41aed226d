import { loadConfig } from '../../shared/config.ts';
import { startWorker, type WorkerProcess } from '../../worker/runner.ts';
import { startTestApi, type TestApi } from './api.ts';

// An API plus a real worker on one test database: the whole job-backed path, in-process.
export interface TestStack extends TestApi {
  worker: WorkerProcess;
}

export async function startTestStack(env: Record<string, string> = {}): Promise<TestStack> {
  const t = await startTestApi(env);
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: '2', ...env });
  const worker = await startWorker(config, t.database.url, { metricsPort: null, crontab: null });
  return {
    ...t,
    worker,
    async close() {
      await worker.close();
      await t.close();
    },
  };
}

/** Polls a 202 Location until it answers something else. */
export async function pollUntilDone(
  base: string,
  location: string,
  key?: string,
  timeoutMs = 60_000,
): Promise<Response> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(base + location, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    if (res.status !== 202) return res;
    if (Date.now() > until) throw new Error(`still 202 after ${timeoutMs}ms: ${location}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
