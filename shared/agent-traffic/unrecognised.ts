import { type Kysely, sql } from 'kysely';
import { agentsInUse } from '../agent-catalogue/classify.ts';
import { classifyVisit } from '../agent-catalogue/classify-visit.ts';
import { botToken } from '../agent-catalogue/unlisted.ts';
import type { Database } from '../db/database.ts';

// Automated clients a site saw that the catalogue does not name: stored agent events whose user
// agent the classifier in use matches to no catalogue entry (AI-marked bots, bots attributed to an
// operator only by the site their user agent names). The console offers to report each as an agent.

export interface UnrecognisedClient {
  token: string;
  userAgent: string;
  visits: number;
  firstSeen: Date;
}

const MAX_USER_AGENTS = 500;

export async function unrecognisedClients(
  db: Kysely<Database>,
  siteId: string,
  since: Date,
  limit = 20,
): Promise<UnrecognisedClient[]> {
  const { rows } = await sql<{ user_agent: string; visits: number; first_seen: Date }>`
    select user_agent, count(*)::int as visits, min(time) as first_seen
    from agent_events where site_id = ${siteId}::bigint and time >= ${since}
    group by user_agent order by visits desc limit ${MAX_USER_AGENTS}`.execute(db);
  const known = new Set(agentsInUse().map((a) => a.token.toLowerCase()));
  const byToken = new Map<string, UnrecognisedClient>();
  for (const r of rows) {
    const c = classifyVisit(r.user_agent);
    // Named by the catalogue (or a person, as a signed browser visit is): not unrecognised.
    if (!c.isBot || (c.agent && known.has(c.agent.toLowerCase()))) continue;
    const token = c.agent || botToken(r.user_agent) || r.user_agent.slice(0, 60);
    const seen = byToken.get(token.toLowerCase());
    if (!seen)
      byToken.set(token.toLowerCase(), {
        token,
        userAgent: r.user_agent,
        visits: r.visits,
        firstSeen: r.first_seen,
      });
    else {
      seen.visits += r.visits;
      if (r.first_seen < seen.firstSeen) seen.firstSeen = r.first_seen;
    }
  }
  return [...byToken.values()].sort((a, b) => b.visits - a.visits).slice(0, limit);
}
