import type Router from '@koa/router';
import type { Kysely } from 'kysely';
import { activeSubscription, getAccountView } from '../../../shared/accounts/accounts.ts';
import type { AccountView } from '../../../shared/accounts/auth.ts';
import { listSites } from '../../../shared/agent-sites/sites.ts';
import { listOrders } from '../../../shared/audits/orders.ts';
import type { Database } from '../../../shared/db/database.ts';
import { notFound } from '../../../shared/errors.ts';
import {
  issueOwnKey,
  listKeys,
  liveKeyCount,
  ownKeyExists,
  revokeOwnKey,
  setNotificationPreferences,
} from '../../../shared/people/console.ts';
import { renderAccount, renderKeys, renderOverview } from '../console-pages.ts';
import { accountOf, formOf, html200, type PageKit, viewerOf } from '../web.ts';

// The console's own pages, for both variants: the overview, API keys, and the account's settings.

async function accountInfo(db: Kysely<Database>, accountId: string): Promise<AccountView> {
  const account = await getAccountView(db, accountId);
  if (!account) throw notFound();
  return account;
}

export function consoleRoutes(router: Router, { services, signedIn, notFoundPage }: PageKit): void {
  const { db, config } = services;

  router.get(
    '/console',
    signedIn(async (ctx, web) => {
      const accountId = accountOf(web);
      const account = await accountInfo(db, accountId);
      const sub = account.variant === 'A' ? await activeSubscription(db, accountId) : undefined;
      const sites = sub
        ? Number(
            (
              await db
                .selectFrom('monitored_sites')
                .select((eb) => eb.fn.countAll<string>().as('n'))
                .where('account_id', '=', accountId)
                .executeTakeFirstOrThrow()
            ).n,
          )
        : 0;
      const orders = account.variant === 'A' ? (await listOrders(db, { accountId, limit: 1000 })).length : 0;
      html200(
        ctx,
        renderOverview(viewerOf(web), {
          account,
          liveKeys: await liveKeyCount(db, accountId),
          monitoring: sub ? { sites, quota: sub.site_quota } : null,
          orders,
          agentSites: account.variant === 'B' ? (await listSites(db, accountId)).length : undefined,
          baseUrl: config.publicBaseUrl,
        }),
      );
    }),
  );

  router.get(
    '/console/keys',
    signedIn(async (ctx, web) => html200(ctx, renderKeys(viewerOf(web), await listKeys(db, accountOf(web))))),
  );
  router.post(
    '/console/keys',
    signedIn(async (ctx, web) => {
      const key = await issueOwnKey(db, accountOf(web), config.CONSOLE_MAX_KEYS);
      const keys = await listKeys(db, accountOf(web));
      if (!key) {
        const error = `You have ${config.CONSOLE_MAX_KEYS} live keys, the most an account can hold. Revoke one you no longer use, then create a new one.`;
        return html200(ctx, renderKeys(viewerOf(web), keys, { error }), 409);
      }
      html200(
        ctx,
        renderKeys(viewerOf(web), keys, { created: { key: key.key, prefix: key.displayPrefix } }),
        201,
      );
    }),
  );
  router.post(
    '/console/keys/:id/revoke',
    signedIn(async (ctx, web) => {
      const accountId = accountOf(web);
      const id = ctx.params.id!;
      if (!(await ownKeyExists(db, accountId, id))) return notFoundPage(ctx, web);
      await revokeOwnKey(db, accountId, id);
      const keys = await listKeys(db, accountId);
      const prefix = keys.find((k) => k.id === id)?.display_prefix;
      html200(ctx, renderKeys(viewerOf(web), keys, { revoked: prefix }));
    }),
  );

  router.get(
    '/console/account',
    signedIn(async (ctx, web) =>
      html200(ctx, renderAccount(viewerOf(web), await accountInfo(db, accountOf(web)))),
    ),
  );
  router.post(
    '/console/account/notifications',
    signedIn(async (ctx, web) => {
      const f = formOf(ctx);
      await setNotificationPreferences(db, accountOf(web), {
        email_alerts: f.email_alerts === 'on',
        weekly_digest: f.weekly_digest === 'on',
      });
      html200(ctx, renderAccount(viewerOf(web), await accountInfo(db, accountOf(web)), true));
    }),
  );
}
