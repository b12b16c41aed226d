import type { Kysely } from 'kysely';
import { activeSubscription } from '../accounts/accounts.ts';
import type { Database } from '../db/database.ts';
import type { Subscription } from '../db/tables/subscriptions.ts';
import { subscriptionRequired } from '../errors.ts';

export const GEO_PLANS = ['growth', 'agency'] as const;

/** GEO for monitored sites needs an active Growth or Agency plan (403 subscription_required). */
export async function requireGeoPlan(db: Kysely<Database>, accountId: string): Promise<Subscription> {
  const sub = await activeSubscription(db, accountId);
  if (!sub || !(GEO_PLANS as readonly string[]).includes(sub.plan)) {
    throw subscriptionRequired(
      'GEO for monitored sites needs an active Growth or Agency plan on this account; none is active.',
    );
  }
  return sub;
}
