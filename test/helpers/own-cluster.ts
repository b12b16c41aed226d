import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type EmbeddedCluster, freePort, startEmbedded } from '../../shared/db/embedded.ts';
import { migrate } from '../../shared/db/migrate.ts';

/**
 * A migrated embedded Postgres of one test file's own (own port and data folder), for tests that
 * take the database away: stopping it disturbs no other test. Its URL stays the same across
 * stop() and start().
 */
export interface OwnCluster {
  url: string;
  stop: () => Promise<void>;
  start: () => Promise<void>;
  /** Stops it and removes its data folder. */
  close: () => Promise<void>;
}

export async function startOwnCluster(name: string): Promise<OwnCluster> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `sightline-${name}-`));
  fs.chmodSync(dataDir, 0o755); // the unprivileged postgres user must be able to enter it
  const port = await freePort();
  let cluster: EmbeddedCluster | undefined = await startEmbedded({ dataDir, port, reuse: false });
  const url = cluster.url('postgres');
  await migrate(url);
  const stop = async () => {
    await cluster?.stop();
    cluster = undefined;
  };
  return {
    url,
    stop,
    start: async () => {
      cluster = await startEmbedded({ dataDir, port, reuse: false });
    },
    close: async () => {
      await stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
