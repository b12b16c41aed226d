import type { ColumnType } from 'kysely';

export interface WorkerHeartbeatsTable {
  worker_id: string;
  process: string;
  started_at: ColumnType<Date, never, never>;
  last_seen: ColumnType<Date, never, Date | string>;
}
