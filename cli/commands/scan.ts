import { parseArgs } from 'node:util';
import { AppError } from '../../shared/errors.ts';
import { createUrlPolicy, normalizeTargetUrl, resolveTargetUrl } from '../../shared/net/url-policy.ts';
import { isGatherError } from '../../shared/scan-engine/artifacts.ts';
import { pageVerdict } from '../../shared/scan-engine/computed/page-kind.ts';
import { runScan, type ScanOutcome, scanDeadlineMs } from '../../shared/scans/gather-and-score.ts';
import { partialReasons } from '../../shared/scans/partial.ts';
import { browserResources, closeBrowserResources } from '../../worker/browser/resources.ts';
import { type CliIO, loadCliConfig, UsageError } from '../context.ts';
import { startProgress } from '../progress.ts';
import { scanUsage as usage } from '../usage.ts';

export { usage };

/** The URL policy of this run: SCAN_ALLOW_HOSTS plus --allow-host; a bad entry is a usage error. */
function cliUrlPolicy(allowHosts: string): ReturnType<typeof createUrlPolicy> {
  try {
    return createUrlPolicy(allowHosts);
  } catch (err) {
    throw new UsageError(
      `--allow-host: ${(err as Error).message.replace(/^SCAN_ALLOW_HOSTS: /, '')} (host, host:port or CIDR, without a scheme)`,
    );
  }
}

/**
 * The URL to scan, or null when the policy refuses it; then stderr says why and, for a local or
 * private address, how to allow it.
 */
async function resolveOrExplain(
  input: string,
  policy: ReturnType<typeof createUrlPolicy>,
  io: CliIO,
): Promise<URL | null> {
  try {
    return await resolveTargetUrl(input, policy);
  } catch (err) {
    if (!(err instanceof AppError && err.code === 'url_not_allowed')) throw err;
    const target = normalizeTargetUrl(input);
    const hostPort = target.port ? `${target.hostname}:${target.port}` : target.hostname;
    io.err(`url_not_allowed: ${err.detail}`);
    if (/not a public address|local host name|resolves to an address/.test(err.detail))
      io.err(
        `To scan it anyway (your own machine or network), allow it: sightline scan ${input} --allow-host ${hostPort}\n` +
          `or set SCAN_ALLOW_HOSTS=${hostPort} (comma-separated hosts, host:port or CIDRs; the API and worker read it too).`,
      );
    return null;
  }
}

/** Each model's score and dimensions, with up to five issues per dimension. */
function printScores(io: CliIO, results: ScanOutcome['results']): void {
  for (const [modelId, r] of Object.entries(results)) {
    io.out(`\n${modelId} ${r.modelVersion}: ${r.overallScore}/100 (grade ${r.grade})`);
    for (const d of r.dimensions) {
      io.out(`  ${d.name.padEnd(18)} ${String(d.score ?? '-').padStart(3)}`);
      for (const issue of d.issues.slice(0, 5)) io.out(`      - ${issue}`);
      if (d.issues.length > 5) io.out(`      … ${d.issues.length - 5} more`);
    }
  }
}

/**
 * The human-readable summary: why the page is not content (if so), the scores, the artifacts not
 * gathered that no partial reason explains. Returns false when the page itself was not fetched.
 */
function printSummary(
  io: CliIO,
  url: URL,
  outcome: ScanOutcome,
  verdict: ReturnType<typeof pageVerdict>,
  reasons: Record<string, string>,
): boolean {
  const { artifacts, results } = outcome;
  const page = artifacts.Page;
  if (!page || isGatherError(page)) {
    io.err(`could not fetch ${url}: ${page && isGatherError(page) ? page.error.message : 'no page'}`);
    return false;
  }
  if (verdict.kind === 'error_status') {
    io.err(
      `${url} answered HTTP ${verdict.httpStatus}: an error page, not content; not scored (security and SEO below)`,
    );
  } else if (verdict.kind === 'directory_listing') {
    io.err(`warning: ${url} serves an auto-generated directory listing (${verdict.listing}), not a page`);
  }
  printScores(io, results);
  const notGathered = Object.entries(artifacts).filter(([k, v]) => isGatherError(v) && !(k in reasons));
  if (notGathered.length)
    io.out(
      `\nnot gathered: ${notGathered.map(([k, v]) => `${k} (${isGatherError(v) ? v.error.message : ''})`).join('; ')}`,
    );
  return true;
}

/**
 * Runs one scan in this process and prints a summary (or the full JSON). The phase and the time
 * so far show on one updating line on a terminal, as plain lines otherwise.
 */
export async function scan(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      mode: { type: 'string', default: 'quick' },
      json: { type: 'boolean', default: false },
      'allow-host': { type: 'string', multiple: true, default: [] },
      'allow-partial': { type: 'boolean', default: false },
    },
  });
  const input = positionals[0];
  if (!input) throw new UsageError(usage);
  const mode = values.mode;
  if (mode !== 'quick' && mode !== 'full') throw new UsageError('--mode must be quick or full');
  const config = loadCliConfig();
  const allowHosts = [config.SCAN_ALLOW_HOSTS, ...values['allow-host']].filter(Boolean).join(',');
  const policy = cliUrlPolicy(allowHosts);
  const url = await resolveOrExplain(input, policy, io);
  if (!url) return 1;

  const progress = startProgress(io, `scanning ${url} (${mode})`);
  const deadline = AbortSignal.timeout(scanDeadlineMs(config, mode));
  try {
    const outcome = await runScan(url, mode, {
      policy,
      browser: () => browserResources(config, allowHosts),
      signal: deadline,
      onPhase: (phase) => progress.phase(phase),
      scoring: 'here', // one scan and exit: no second copy of the checks in a thread
    });
    progress.done('done');
    const { artifacts, results } = outcome;
    const page = artifacts.Page;
    const verdict = pageVerdict(artifacts);
    const reasons = partialReasons(mode, artifacts);
    const partial = Object.keys(reasons).length > 0;
    // An error page is not scored as content: exit non-zero, as for a page that could not be fetched.
    // A partial scan (evidence missing, or a browser load that saw another page) too, unless allowed.
    const failed =
      !page ||
      isGatherError(page) ||
      verdict.kind === 'error_status' ||
      (partial && !values['allow-partial']);
    if (values.json) {
      io.out(
        JSON.stringify(
          {
            url: url.toString(),
            mode,
            httpStatus: verdict.httpStatus,
            pageKind: verdict.kind,
            partial,
            ...(partial ? { partialReasons: reasons } : {}),
            results,
            artifacts,
          },
          null,
          2,
        ),
      );
    } else if (!printSummary(io, url, outcome, verdict, reasons)) {
      return 1;
    }
    if (partial) printPartial(io, reasons, values['allow-partial']);
    return failed ? 1 : 0;
  } catch (err) {
    progress.done();
    throw err;
  } finally {
    await closeBrowserResources();
  }
}

/** Says why the scan is partial, on stderr; without --allow-partial the exit code is 1. */
function printPartial(io: CliIO, reasons: Record<string, string>, allowed: boolean): void {
  io.err(`\npartial scan: ${Object.keys(reasons).join(', ')} missing`);
  for (const [name, reason] of Object.entries(reasons)) io.err(`  ${name}: ${reason}`);
  if (!allowed) io.err('exit 1: pass --allow-partial to accept a partial scan');
}
