import type { Kysely } from 'kysely';
import { z } from 'zod';
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
import { definePage, type PageDef } from '../page.ts';
import { accountOf, html200, type PageKit, viewerOf } from '../web.ts';

// The console's own pages, for both variants: the overview, API keys, and the account's settings.

async function accountInfo(db: Kysely<Database>, accountId: string): Promise<AccountView> {
  const account = await getAccountView(db, accountId);
  if (!account) throw notFound();
  return account;
}

/** Checkboxes: a ticked box is sent as `on`, an unticked one not at all. */
const checkbox = z
  .string()
  .optional()
  .transform((v) => v === 'on');
const NotificationsForm = z.object({ email_alerts: checkbox, weekly_digest: checkbox });

export function consoleRoutes({ services, notFoundPage }: PageKit): PageDef[] {
  const { db, config } = services;

  return [
    definePage({
      method: 'get',
      path: '/console',
      auth: 'signed-in',
      handler: async (ctx, web) => {
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
        const orders =
          account.variant === 'A' ? (await listOrders(db, { accountId, limit: 1000 })).length : 0;
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
      },
    }),

    definePage({
      method: 'get',
      path: '/console/keys',
      auth: 'signed-in',
      handler: async (ctx, web) =>
        html200(ctx, renderKeys(viewerOf(web), await listKeys(db, accountOf(web)))),
    }),
    definePage({
      method: 'post',
      path: '/console/keys',
      auth: 'signed-in',
      handler: async (ctx, web) => {
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
      },
    }),
    definePage({
      method: 'post',
      path: '/console/keys/:id/revoke',
      auth: 'signed-in',
      handler: async (ctx, web) => {
        const accountId = accountOf(web);
        const id = ctx.params.id!;
        if (!(await ownKeyExists(db, accountId, id))) return notFoundPage(ctx, web);
        await revokeOwnKey(db, accountId, id);
        const keys = await listKeys(db, accountId);
        const prefix = keys.find((k) => k.id === id)?.display_prefix;
        html200(ctx, renderKeys(viewerOf(web), keys, { revoked: prefix }));
      },
    }),

    definePage({
      method: 'get',
      path: '/console/account',
      auth: 'signed-in',
      handler: async (ctx, web) =>
        html200(ctx, renderAccount(viewerOf(web), await accountInfo(db, accountOf(web)))),
    }),
    definePage({
      method: 'post',
      path: '/console/account/notifications',
      auth: 'signed-in',
      form: NotificationsForm,
      handler: async (ctx, web, { form }) => {
        await setNotificationPreferences(db, accountOf(web), form);
        html200(ctx, renderAccount(viewerOf(web), await accountInfo(db, accountOf(web)), true));
      },
    }),
  ];
}
