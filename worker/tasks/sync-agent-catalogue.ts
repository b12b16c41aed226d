import { z } from 'zod';
import { onCatalogueChanged } from '../../shared/agent-catalogue/on-catalogue-changed.ts';
import { type LocationSync, sourcesOf, summaryLine, syncSource } from '../../shared/agent-catalogue/sync.ts';
import { defineTask } from '../task.ts';

// Cron (daily): the agent lists named in AGENT_CATALOGUE_SOURCES (files or URLs; empty = off)
// merged into the catalogue, and vendor IP-range or reverse-DNS files among them stored as
// verification sources, as `sightline agents sync` does. A source that fails is logged and
// the others still merge; when every source failed the job fails (and is retried).
export default defineTask({
  name: 'sync_agent_catalogue',
  payload: z.object({}).passthrough(),
  async run(_payload, { db, config, log, note }) {
    const sources = sourcesOf(config.AGENT_CATALOGUE_SOURCES);
    if (sources.length === 0) {
      note?.({ sources: 0 });
      return;
    }
    const results: LocationSync[] = [];
    const failed: string[] = [];
    for (const location of sources) {
      try {
        const r = await syncSource(db, location, { allowHosts: config.SCAN_ALLOW_HOSTS });
        results.push(r);
        log.info({ location, kind: r.kind }, summaryLine(r));
      } catch (err) {
        failed.push(location);
        log.warn({ err, location }, 'agent list sync failed; the catalogue keeps what it has');
      }
    }
    const changed = results.some(
      (r) => r.kind === 'catalogue' && r.result.added + r.result.updated + r.result.withdrawn > 0,
    );
    if (changed) await onCatalogueChanged(db);
    note?.({ sources: sources.length, synced: results.length, failed: failed.length, changed });
    if (results.length === 0) throw new Error(`every agent list failed to sync: ${failed.join(', ')}`);
  },
});
