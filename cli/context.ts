import { type Config, ConfigError, config } from '../shared/config.ts';
import { type ResolvedDatabase, resolveDatabase } from '../shared/db/connect.ts';
import { migrate } from '../shared/db/migrate.ts';
import { createDb, type Db } from '../shared/db/pool.ts';

export interface CliIO {
  out: (line: string) => void;
  err: (line: string) => void;
  /** An updating status line (a terminal only); '' clears it. Absent: print plain lines. */
  status?: (line: string) => void;
}

export { UsageError } from './usage.ts';

export { ConfigError };

/** The database the service uses: DATABASE_URL, or the embedded cluster (reused when running). */
export async function openDatabase(
  cfg: Config,
  io: CliIO,
  opts: { migrate?: boolean } = {},
): Promise<{
  resolved: ResolvedDatabase;
  handle: Db;
  close: () => Promise<void>;
}> {
  const resolved = await resolveDatabase(cfg);
  if (resolved.cluster?.owned) io.err(`embedded postgres started (data: ${resolved.cluster.dataDir})`);
  if (opts.migrate !== false) await migrate(resolved.url, (m) => io.err(m));
  const handle = createDb(resolved.url, { max: 4, application: 'sightline-cli' });
  return {
    resolved,
    handle,
    close: async () => {
      await handle.close();
      if (resolved.cluster?.owned) await resolved.cluster.stop();
    },
  };
}

export function loadCliConfig(): Config {
  return config();
}
