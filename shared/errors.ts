// Typed errors with a stable machine code. Thrown anywhere (API, services, shared modules) and
// rendered once, by the API's error middleware, as application/problem+json (RFC 9457).

export interface FieldError {
  field: string; // e.g. "query.url", "body.product"
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    detail?: string,
    readonly extra: { errors?: FieldError[]; headers?: Record<string, string>; [k: string]: unknown } = {},
  ) {
    super(detail ?? title);
    this.name = 'AppError';
  }
  get detail(): string {
    return this.message;
  }
}

export const badRequest = (detail: string, errors?: FieldError[]) =>
  new AppError(400, 'invalid_request', 'Bad request', detail, { errors });
export const invalidUrl = (detail: string, field = 'url') =>
  new AppError(400, 'invalid_url', 'Invalid URL', detail, { errors: [{ field, message: detail }] });
export const urlNotAllowed = (detail: string, field = 'url') =>
  new AppError(400, 'url_not_allowed', 'URL not allowed', detail, { errors: [{ field, message: detail }] });
export const unauthorized = (detail = 'A valid API key is required: send Authorization: Bearer <API_KEY>.') =>
  new AppError(401, 'unauthorized', 'Unauthorized', detail);
export const tierRequired = (detail: string) => new AppError(403, 'tier_required', 'Tier too low', detail);
export const variantMismatch = (detail: string) =>
  new AppError(403, 'variant_mismatch', 'Wrong API variant', detail);
export const subscriptionRequired = (detail: string) =>
  new AppError(403, 'subscription_required', 'Subscription required', detail);
export const quotaExceeded = (detail: string) =>
  new AppError(403, 'quota_exceeded', 'Quota exceeded', detail);
export const notFound = (detail = 'No such resource.') => new AppError(404, 'not_found', 'Not found', detail);
/** The router sets the Allow header itself before throwing this. */
export const methodNotAllowed = () =>
  new AppError(
    405,
    'method_not_allowed',
    'Method not allowed',
    'This path does not accept that method; see the Allow header.',
  );
export const unavailable = (code: string, detail: string) =>
  new AppError(503, code, 'Service unavailable', detail);

/** Seconds a client is told to wait while the database is out of disk space. */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 30;

export const storageFull = () =>
  new AppError(
    503,
    'storage_full',
    'Service unavailable',
    'The database is out of disk space for the moment; retry later.',
    { headers: { 'Retry-After': String(STORAGE_FULL_RETRY_AFTER_SECONDS) } },
  );

/** A job stopped because the worker process went over WORKER_MEMORY_BUDGET_MB while it ran. */
export const workerMemoryBudget = (usedMb: number, budgetMb: number) =>
  new AppError(
    422,
    'worker_memory_budget',
    'Worker memory budget exceeded',
    `The worker reached ${usedMb} MB, over its ${budgetMb} MB budget (WORKER_MEMORY_BUDGET_MB), while this ran; it was stopped.`,
  );
