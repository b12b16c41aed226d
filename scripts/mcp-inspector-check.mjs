#!/usr/bin/env node
// Drives a running Sightline MCP endpoint with the MCP Inspector's CLI mode (`--cli`), the same
// tool a developer would point at it: lists the tools, calls one, and checks that a keyless call
// is refused with -32001. Exits non-zero on the first failed check.
//
//   node scripts/mcp-inspector-check.mjs --url http://127.0.0.1:3000/mcp --key sl_live_... [--scan https://example.com]
//
// A keys: tools/list, then list_audit_products (and scan_website in quick mode with --scan).
// B keys: tools/list, then get_citability_score on --scan (required).
// The Inspector's CLI comes from @modelcontextprotocol/inspector-cli (see docs/mcp.md for why
// that package rather than @modelcontextprotocol/inspector on Node 20).
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.MCP_URL },
    key: { type: 'string', default: process.env.SIGHTLINE_API_KEY },
    scan: { type: 'string' },
  },
});
if (!values.url || !values.key) {
  console.error('usage: mcp-inspector-check.mjs --url <mcp endpoint> --key <API key> [--scan <site url>]');
  process.exit(2);
}
const variant = values.key.startsWith('ar_') ? 'B' : 'A';
if (variant === 'B' && !values.scan) {
  console.error('B keys have no tool without a URL: pass --scan <site url>');
  process.exit(2);
}

const require = createRequire(import.meta.url);
const inspector = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')),
  'build/cli.js',
);

/** One Inspector run; resolves with its exit code, stdout (JSON on success) and stderr. */
function inspect(args, key) {
  const argv = [inspector, '--cli', values.url, '--transport', 'http', ...args];
  if (key) argv.push('--header', `Authorization: Bearer ${key}`);
  // Run from the Inspector's build folder: it finds its own package.json through a path relative
  // to the working directory, which fails from anywhere else.
  const opts = { cwd: path.dirname(inspector), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 };
  return new Promise((resolve) => {
    execFile(process.execPath, argv, opts, (err, stdout, stderr) => {
      resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr });
    });
  });
}

function check(ok, what, detail = '') {
  if (!ok) {
    console.error(`FAIL ${what}${detail ? `\n${detail}` : ''}`);
    process.exit(1);
  }
  console.log(`ok   ${what}`);
}

async function callTool(name, args) {
  const toolArgs = Object.entries(args).flatMap(([k, v]) => ['--tool-arg', `${k}=${v}`]);
  const run = await inspect(['--method', 'tools/call', '--tool-name', name, ...toolArgs], values.key);
  check(run.code === 0, `tools/call ${name} exits 0`, run.stderr);
  const result = JSON.parse(run.stdout);
  check(
    result.isError !== true && result.structuredContent,
    `tools/call ${name} returns structured content`,
    run.stdout,
  );
  check(
    result.content?.some((c) => c.type === 'text' && c.text),
    `tools/call ${name} has a text summary`,
  );
  return result.structuredContent;
}

const expected = {
  A: [
    'scan_website',
    'list_audit_products',
    'place_audit_order',
    'get_audit_status',
    'geo_check',
    'run_visibility',
    'run_share_of_voice',
    'list_geo_prompts',
    'add_geo_prompt',
  ],
  B: ['scan_website', 'get_citability_score'],
}[variant];

const list = await inspect(['--method', 'tools/list'], values.key);
check(list.code === 0, 'tools/list exits 0', list.stderr);
const names = JSON.parse(list.stdout).tools.map((t) => t.name);
check(
  JSON.stringify(names) === JSON.stringify(expected),
  `tools/list shows the ${variant} tools`,
  names.join(', '),
);

if (variant === 'A') {
  const { products } = await callTool('list_audit_products', {});
  check(products?.length === 7, 'list_audit_products lists 7 products');
  if (values.scan) {
    const scan = await callTool('scan_website', { url: values.scan, mode: 'quick' });
    check(
      Array.isArray(scan.dimensions) || typeof scan.poll === 'string',
      'scan_website returns a result or how to poll',
    );
  }
} else {
  const score = await callTool('get_citability_score', { url: values.scan });
  check(
    typeof score.overall === 'number' || typeof score.poll === 'string',
    'get_citability_score returns a score or how to poll',
  );
}

const refused = await inspect([
  '--method',
  'tools/call',
  '--tool-name',
  expected[0],
  '--tool-arg',
  'url=example.com',
]);
check(
  refused.code !== 0 && /-32001/.test(refused.stderr + refused.stdout),
  'a keyless tools/call is refused with -32001',
  refused.stderr,
);
