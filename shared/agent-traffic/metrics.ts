import client from 'prom-client';
import { registry } from '../metrics.ts';

export const agentRequestsIngested = new client.Counter({
  name: 'sightline_agent_requests_ingested_total',
  help: 'Requests seen by agent-traffic ingestion, by source (collect, import) and outcome (stored, duplicate, referral, human, bot, expired, invalid)',
  labelNames: ['source', 'outcome'] as const,
  registers: [registry],
});

export const agentIngestLag = new client.Histogram({
  name: 'sightline_agent_ingest_lag_seconds',
  help: 'Age of the newest request in a collect batch when it is stored',
  buckets: [1, 5, 15, 60, 300, 900, 3600, 21600, 86400],
  registers: [registry],
});
