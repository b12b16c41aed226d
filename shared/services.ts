import type { Kysely } from 'kysely';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import type { EventListener } from './jobs/events.ts';
import type { Logger } from './logger.ts';

// What handlers may use: handed to every route, built once per API process.
export interface Services {
  config: Config;
  db: Kysely<Database>;
  events: EventListener;
  log: Logger;
}
