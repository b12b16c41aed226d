import { parseArgs } from 'node:util';
import { listOrders, orderDeliveries, reportUrl, settleStranded } from '../../shared/audits/orders.ts';
import type { AuditOrderStatus } from '../../shared/db/tables/audit-orders.ts';
import { type CliIO, loadCliConfig, openDatabase, UsageError } from '../context.ts';
import { auditsUsage as usage } from '../usage.ts';

export { usage };

const STATUSES = new Set(['paid', 'generating', 'delivered', 'failed']);
const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Operators' view of audit orders: recent ones, or one with its report summary and webhook attempts. */
export async function audits(args: string[], io: CliIO): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      status: { type: 'string' },
      account: { type: 'string' },
      limit: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  if (sub === 'list') return listAudits(values, io);
  if (sub === 'show') {
    const id = positionals[0];
    if (!id) throw new UsageError(`an order id is required\n${usage}`);
    return showAudit(id, values.json, io);
  }
  throw new UsageError(usage);
}

/** `audits list`: recent orders, newest first, optionally by status and account. */
async function listAudits(
  values: { status?: string; account?: string; limit?: string; json: boolean },
  io: CliIO,
): Promise<number> {
  if (values.status && !STATUSES.has(values.status))
    throw new UsageError(`--status must be one of ${[...STATUSES].join(', ')}`);
  if (values.account && !/^\d+$/.test(values.account))
    throw new UsageError('--account must be an account id');
  const limit = values.limit ? Number(values.limit) : 50;
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be 1-1000');
  const db = await openDatabase(loadCliConfig(), io);
  try {
    const rows = await listOrders(db.handle.db, {
      status: values.status as AuditOrderStatus | undefined,
      accountId: values.account,
      limit,
    });
    const orders = rows.map((r) => ({
      order_id: r.id,
      account: Number(r.account_id),
      product: r.product,
      status: r.status,
      target_url: r.target_url,
      attempts: r.attempts,
      created_at: iso(r.created_at),
      delivered_at: iso(r.delivered_at),
      failed_at: iso(r.failed_at),
      error: r.error,
    }));
    if (values.json) io.out(JSON.stringify({ orders }));
    else if (orders.length === 0) io.out('no audit orders');
    else {
      for (const o of orders) {
        io.out(
          `${o.order_id}  ${o.status.padEnd(10)} ${o.product.padEnd(19)} account ${String(o.account).padEnd(5)} ${o.created_at}  ${o.target_url}${o.error ? `  (${o.error.code})` : ''}`,
        );
      }
    }
    return 0;
  } finally {
    await db.close();
  }
}

/** `audits show`: one order (a stranded one settled first), its report in brief and its webhook attempts. */
async function showAudit(id: string, json: boolean, io: CliIO): Promise<number> {
  const config = loadCliConfig();
  const db = await openDatabase(config, io);
  try {
    const row = await db.handle.db
      .selectFrom('audit_orders')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) {
      io.err(`no audit order ${id}`);
      return 1;
    }
    const order = await settleStranded(db.handle.db, row);
    const deliveries = (await orderDeliveries(db.handle.db, id)).map((d) => ({
      id: d.id,
      event: d.event,
      url: d.url,
      status: d.status,
      http_status: d.http_status,
      latency_ms: d.latency_ms,
      error: d.error,
      created_at: iso(d.created_at),
    }));
    const view = orderView(order, order.status === 'delivered' ? reportUrl(config, order) : null, deliveries);
    if (json) io.out(JSON.stringify(view));
    else printOrder(view, io);
    return 0;
  } finally {
    await db.close();
  }
}

type Order = Awaited<ReturnType<typeof settleStranded>>;
type Delivery = {
  event: string;
  status: string;
  http_status: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string | null;
};

/** The order as `audits show --json` prints it. */
function orderView<D>(order: Order, report_url: string | null, deliveries: D[]) {
  const report = order.report as {
    counts?: Record<string, number>;
    pages?: unknown[];
    score?: number | null;
  } | null;
  return {
    order_id: order.id,
    account: Number(order.account_id),
    product: order.product,
    status: order.status,
    target_url: order.target_url,
    webhook_url: order.webhook_url,
    idempotency_key: order.idempotency_key,
    attempts: order.attempts,
    created_at: iso(order.created_at),
    started_at: iso(order.started_at),
    delivered_at: iso(order.delivered_at),
    failed_at: iso(order.failed_at),
    error: order.error,
    report_summary: order.report_summary,
    report: report
      ? { score: report.score ?? null, pages: report.pages?.length ?? 0, counts: report.counts ?? {} }
      : null,
    report_url,
    webhook_deliveries: deliveries,
  };
}

function printOrder(view: ReturnType<typeof orderView<Delivery>>, io: CliIO): void {
  io.out(`${view.order_id}  ${view.status}  ${view.product}  ${view.target_url}`);
  io.out(`  account ${view.account}, created ${view.created_at}, ${view.attempts} generation attempt(s)`);
  if (view.error) io.out(`  failed ${view.failed_at}: ${view.error.code}: ${view.error.message}`);
  if (view.report_summary) io.out(`  ${view.report_summary}`);
  if (view.report_url) io.out(`  report: ${view.report_url}`);
  if (view.webhook_url) io.out(`  webhook: ${view.webhook_url}`);
  for (const d of view.webhook_deliveries) {
    io.out(
      `    ${d.created_at} ${d.event} ${d.status} ${d.http_status ?? '-'} ${d.latency_ms ?? '-'} ms${d.error ? ` ${d.error}` : ''}`,
    );
  }
}
