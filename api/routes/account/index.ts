import { getAccountView } from '../../../shared/accounts/accounts.ts';
import { notFound } from '../../../shared/errors.ts';
import { defineRoute } from '../../route.ts';
import { AccountResponse } from './schema.ts';

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/account',
    operationId: 'getAccount',
    summary: "The calling key's account",
    tags: ['Account'],
    access: { kind: 'key', variants: ['A', 'B'] },
    responses: { 200: { description: 'The account', schema: AccountResponse } },
    async handler(ctx, _input, services) {
      // Admission read the account with the key, in the same statement (sql/016, sql/017).
      const principal = ctx.state.principal!;
      const view = principal.account ?? (await getAccountView(services.db, principal.accountId));
      if (!view) throw notFound('Account not found.');
      ctx.body = view;
    },
  }),
];
