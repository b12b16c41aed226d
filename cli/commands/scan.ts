import { parseArgs } from 'node:util';
import { assertUrlAllowed, createUrlPolicy, normalizeTargetUrl } from '../../shared/net/url-policy.ts';
import { isGatherError } from '../../shared/scan/artifacts.ts';
import { pageVerdict } from '../../shared/scan/computed/page-kind.ts';
import { runScan } from '../../shared/scans/run-scan.ts';
import { browserResources, closeBrowserResources } from '../../worker/browser/resources.ts';
import { type CliIO, loadCliConfig, UsageError } from '../context.ts';

export const usage = 'sightline scan URL [--mode quick|full] [--json]   (no server or database needed)';

/** Runs one scan in this process and prints a summary (or the full JSON), with a line per phase. */
export async function scan(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { mode: { type: 'string', default: 'quick' }, json: { type: 'boolean', default: false } },
  });
  const input = positionals[0];
  if (!input) throw new UsageError(usage);
  const mode = values.mode;
  if (mode !== 'quick' && mode !== 'full') throw new UsageError('--mode must be quick or full');
  const config = loadCliConfig();
  const policy = createUrlPolicy(config.SCAN_ALLOW_HOSTS);
  const url = normalizeTargetUrl(input);
  await assertUrlAllowed(url, policy);

  const started = Date.now();
  const progress = (phase: string) => io.err(`[${((Date.now() - started) / 1000).toFixed(1)}s] ${phase}`);
  progress(`scanning ${url} (${mode})`);
  const deadline = AbortSignal.timeout(
    mode === 'full' ? config.SCAN_FULL_DEADLINE_MS : config.SCAN_QUICK_DEADLINE_MS,
  );
  try {
    const { artifacts, results } = await runScan(url, mode, {
      policy,
      browser: () => browserResources(config),
      signal: deadline,
      onPhase: progress,
    });
    progress('done');
    const page = artifacts.Page;
    const verdict = pageVerdict(artifacts);
    // An error page is not scored as content: exit non-zero, as for a page that could not be fetched.
    const failed = !page || isGatherError(page) || verdict.kind === 'error_status';
    if (values.json) {
      io.out(
        JSON.stringify(
          {
            url: url.toString(),
            mode,
            httpStatus: verdict.httpStatus,
            pageKind: verdict.kind,
            results,
            artifacts,
          },
          null,
          2,
        ),
      );
      return failed ? 1 : 0;
    }
    if (!page || isGatherError(page)) {
      io.err(`could not fetch ${url}: ${page && isGatherError(page) ? page.error.message : 'no page'}`);
      return 1;
    }
    if (verdict.kind === 'error_status') {
      io.err(
        `${url} answered HTTP ${verdict.httpStatus}: an error page, not content; not scored (security and SEO below)`,
      );
    } else if (verdict.kind === 'directory_listing') {
      io.err(`warning: ${url} serves an auto-generated directory listing (${verdict.listing}), not a page`);
    }
    for (const [modelId, r] of Object.entries(results)) {
      io.out(`\n${modelId} ${r.modelVersion}: ${r.overallScore}/100 (grade ${r.grade})`);
      for (const d of r.dimensions) {
        io.out(`  ${d.name.padEnd(18)} ${String(d.score ?? '-').padStart(3)}`);
        for (const issue of d.issues.slice(0, 5)) io.out(`      - ${issue}`);
        if (d.issues.length > 5) io.out(`      … ${d.issues.length - 5} more`);
      }
    }
    const notGathered = Object.entries(artifacts).filter(([, v]) => isGatherError(v));
    if (notGathered.length)
      io.out(
        `\nnot gathered: ${notGathered.map(([k, v]) => `${k} (${isGatherError(v) ? v.error.message : ''})`).join('; ')}`,
      );
    return failed ? 1 : 0;
  } finally {
    await closeBrowserResources();
  }
}
