import type { Kysely } from 'kysely';
import { loadConfig } from '../../shared/config.ts';
import type { Database } from '../../shared/db/database.ts';
import { createLogger } from '../../shared/logger.ts';
import { requestScan } from '../../shared/scans/scans.ts';
import type { Services } from '../../shared/services.ts';
import type { FixtureServer } from './fixture-server.ts';

/**
 * Queues quick scans of a fixture site's paths through the scans capability, as the API would
 * (for a worker under test to run), and returns their ids in order.
 */
export async function queueQuickScans(
  db: Kysely<Database>,
  site: FixtureServer,
  paths: string[],
): Promise<string[]> {
  const services = {
    config: loadConfig({ ...process.env, SCAN_ALLOW_HOSTS: `127.0.0.1:${site.port}` }),
    db,
    log: createLogger('test', undefined, 'silent'),
  } as unknown as Services;
  const ids: string[] = [];
  for (const p of paths)
    ids.push(
      (await requestScan(services, { url: new URL(site.origin + p), mode: 'quick', accountId: null })).id,
    );
  return ids;
}
