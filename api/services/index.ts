import type { Kysely } from 'kysely';
import type { Config } from '../../shared/config.ts';
import type { Database } from '../../shared/db/database.ts';
import type { EventListener } from '../../shared/jobs/events.ts';
import type { Logger } from '../../shared/logger.ts';

// What handlers may use: handed to every route, built once per API process.
export interface Services {
  config: Config;
  db: Kysely<Database>;
  events: EventListener;
  log: Logger;
}
