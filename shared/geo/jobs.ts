import { z } from 'zod';

// The GEO jobs: names, keys and payload schemas (worker/tasks/geo-*.ts are thin adapters).

/** One visibility or share-of-voice run (rows written by requestRun or the Sunday fan-out). */
export const GEO_RUN_TASK = 'geo_run';
export const geoRunJobKey = (runId: string) => `geo_run:${runId}`;
export const GeoRunPayload = z.object({ runId: z.string().regex(/^gr_[A-Za-z0-9_-]{8,64}$/) });
/** Below interactive work: a Sunday backlog never delays an API scan. */
export const GEO_RUN_PRIORITY = 20;
export const GEO_RUN_ATTEMPTS = 2;

/** The Sunday schedule: a visibility run for every own site of every Growth/Agency subscription. */
export const GEO_FANOUT_TASK = 'geo_fanout';
export const GeoFanoutPayload = z.object({}).passthrough();

export const geoRunTopic = (runId: string) => `geo_run:${runId}`;
