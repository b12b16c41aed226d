import type { Kysely } from 'kysely';
import { createAccount } from '../../shared/accounts/accounts.ts';
import { registerSite } from '../../shared/agent-sites/sites.ts';
import { createVerifier } from '../../shared/agent-traffic/ingest.ts';
import type { Database } from '../../shared/db/database.ts';

// Agent-traffic test set-up shared by the ingestion, rollup and retention suites.

/** Ingestion's verifier without reverse DNS: tests reach no network. */
export const offlineVerifier = createVerifier({
  AGENT_VERIFY_RDNS: false,
  AGENT_RDNS_TIMEOUT_MS: 100,
  AGENT_RDNS_SERVERS: '',
  SCAN_ALLOW_HOSTS: '',
});

/** A variant B account (intelligence tier) with one registered site. */
export async function newAgentSite(db: Kysely<Database>, email: string, url: string) {
  const { account } = await createAccount(db, {
    email,
    variant: 'B',
    tier: 'intelligence',
    plan: null,
    rateLimit: null,
  });
  return (await registerSite(db, { accountId: account.id, url })).site;
}
