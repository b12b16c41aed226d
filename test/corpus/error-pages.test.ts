import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { scan as cliScan } from '../../cli/commands/scan.ts';
import { loadConfig, resetConfig } from '../../shared/config.ts';
import { measure } from '../../shared/monitoring/watch-kind.ts';
import { createUrlPolicy } from '../../shared/net/url-policy.ts';
import { directoryListingServer } from '../../shared/scan-engine/computed/page-kind.ts';
import { monitoringModel } from '../../shared/scan-engine/models/monitoring.ts';
import { SCAN_MODELS } from '../../shared/scan-engine/score.ts';
import { runScan } from '../../shared/scans/gather-and-score.ts';
import { type FixtureServer, startFixtureServer } from '../helpers/fixture-server.ts';

// Issue 14, error pages: a URL that answers 4xx/5xx is the server's error page, not content, and
// a server's auto-generated directory listing is no page either. Served over real HTTP: the
// h5bp boilerplate's own 404.html answered with 404, a 503, and an nginx-format autoindex of a
// corpus folder; scanned through the real gatherers.

const CORPUS = process.env.CORPUS_DIR ?? path.resolve('../shared/corpora');
const SITES = path.join(CORPUS, 'static-sites');
const present = fs.existsSync(SITES);

/** nginx's autoindex page (ngx_http_autoindex_module's HTML format) for a real folder. */
function nginxAutoindex(dir: string, urlPath: string): string {
  const rows = fs
    .readdirSync(dir, { withFileTypes: true })
    .map((e) => {
      const name = e.isDirectory() ? `${e.name}/` : e.name;
      const size = e.isDirectory() ? '-' : String(fs.statSync(path.join(dir, e.name)).size);
      return `<a href="${name}">${name}</a>${' '.repeat(Math.max(1, 51 - name.length))}24-Nov-2026 08:00${size.padStart(20)}`;
    })
    .join('\r\n');
  return `<html>\r\n<head><title>Index of ${urlPath}</title></head>\r\n<body>\r\n<h1>Index of ${urlPath}</h1><hr><pre><a href="../">../</a>\r\n${rows}\r\n</pre><hr></body>\r\n</html>\r\n`;
}

let server: FixtureServer;
before(async () => {
  if (!present) return;
  server = await startFixtureServer({
    root: SITES,
    routes: {
      '/gone': (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html; charset=utf-8' });
        res.end(fs.readFileSync(path.join(SITES, 'h5bp-boilerplate-dist/404.html')));
      },
      '/down': (_req, res) => {
        res.writeHead(503, { 'content-type': 'text/html; charset=utf-8', 'retry-after': '120' });
        res.end(
          '<!doctype html><html lang="en"><head><title>Service Unavailable</title></head><body><h1>Service Unavailable</h1><p>Back soon.</p></body></html>',
        );
      },
      '/files/': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(nginxAutoindex(path.join(SITES, 'underscorejs-org/docs'), '/files/'));
      },
    },
  });
});
after(async () => {
  await server?.close();
});

async function quick(rel: string) {
  return runScan(new URL(`${server.origin}${rel}`), 'quick', {
    policy: createUrlPolicy(`127.0.0.1:${server.port}`),
    signal: AbortSignal.timeout(60_000),
    models: [...SCAN_MODELS, monitoringModel.id],
  });
}

const CONTENT_DIMS = ['speed', 'accessibility', 'mobile', 'content', 'conversion'];

describe('error pages and directory listings are not scored as content', {
  skip: present ? false : `corpus not found at ${SITES}`,
}, () => {
  it('a 404 (h5bp 404.html): status up front, overall 0 / F, content dimensions not computed', async () => {
    const { results } = await quick('/gone');
    const a = results['site-audit']!;
    assert.equal(a.httpStatus, 404);
    assert.equal(a.pageKind, 'error_status');
    assert.equal(a.overallScore, 0);
    assert.equal(a.grade, 'F');
    for (const id of CONTENT_DIMS) {
      const d = a.dimensions.find((x) => x.id === id)!;
      assert.equal(d.score, null, `${id} must not be computed from an error page`);
      assert.match(d.notComputed ?? '', /HTTP 404/);
    }
    const seo = a.dimensions.find((d) => d.id === 'seo')!;
    assert.ok(seo.score !== null && seo.score <= 20, `seo capped: ${seo.score}`);
    assert.match(seo.issues.join('\n'), /HTTP 404/);
    assert.notEqual(a.dimensions.find((d) => d.id === 'security')!.score, null);
    const b = results['agent-readability']!;
    for (const id of ['structure', 'citability', 'transactability'])
      assert.equal(b.dimensions.find((d) => d.id === id)!.score, null, id);
  });

  it('monitoring: a 404 and a 503 are both down (site_down), not scored', async () => {
    for (const rel of ['/gone', '/down']) {
      const m = measure(await quick(rel));
      assert.equal(m.status, 'down', rel);
    }
  });

  it('a real content page is still content (h5bp index.html)', async () => {
    const { results } = await quick('/h5bp-boilerplate-dist/index.html');
    assert.equal(results['site-audit']!.pageKind, 'content');
    assert.equal(results['site-audit']!.httpStatus, 200);
    for (const d of results['site-audit']!.dimensions) assert.equal(d.notComputed, undefined, d.id);
  });

  it('an nginx autoindex of a corpus folder: a clear warning, content dimensions not computed', async () => {
    const { results } = await quick('/files/');
    const a = results['site-audit']!;
    assert.equal(a.pageKind, 'directory_listing');
    const seo = a.dimensions.find((d) => d.id === 'seo')!;
    assert.match(seo.issues.join('\n'), /auto-generated directory listing/);
    for (const id of CONTENT_DIMS) assert.equal(a.dimensions.find((x) => x.id === id)!.score, null, id);
  });

  it('`sightline scan` exits non-zero on an error page and zero on a content page', async () => {
    process.env.SCAN_ALLOW_HOSTS = `127.0.0.1:${server.port}`;
    resetConfig();
    loadConfig();
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) };
    assert.equal(await cliScan([`${server.origin}/gone`], io), 1);
    assert.match(lines.join('\n'), /answered HTTP 404/);
    assert.equal(await cliScan([`${server.origin}/h5bp-boilerplate-dist/index.html`], io), 0);
  });
});

describe('directory listings of the common servers are recognised, real pages are not', () => {
  const listings = [
    '<html><head><title>Index of /pub</title></head><body><h1>Index of /pub</h1><table><tr><th><img src="/icons/blank.gif" alt="[ICO]"></th><th><a href="?C=N;O=D">Name</a></th></tr></table></body></html>',
    '<!DOCTYPE HTML>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Directory listing for /</title>\n</head>\n<body>\n<h1>Directory listing for /</h1>\n<hr>\n<ul>\n<li><a href="a.txt">a.txt</a></li>\n</ul>\n<hr>\n</body>\n</html>\n',
    '<html><head><title>localhost - /</title></head><body><H1>localhost - /</H1><hr><pre><A HREF="/">[To Parent Directory]</A><br><br></pre><hr></body></html>',
    '<html><head><title>Directory Listing For [/docs/]</title></head><body><h1>Directory Listing For [/docs/]</h1></body></html>',
  ];
  for (const html of listings)
    it(`listing: ${html.replace(/\s+/g, ' ').slice(0, 60)}`, () => assert.ok(directoryListingServer(html)));
  it('pages about indexes are not listings', () => {
    assert.equal(directoryListingServer('<title>Index of Economic Freedom</title><h1>Index</h1>'), null);
    assert.equal(directoryListingServer('<title>Our directory of members</title>'), null);
    // A page that explains listings names IIS's link text without being one.
    assert.equal(
      directoryListingServer(
        '<main><p>IIS writes <code>[To Parent Directory]</code> atop its listing.</p></main>',
      ),
      null,
    );
  });
  it('the corpus pages are not listings', { skip: present ? false : 'no corpus' }, () => {
    for (const f of [
      'underscorejs-org/index.html',
      'w3c-bad-demo/index.html',
      'h5bp-boilerplate-dist/index.html',
    ])
      assert.equal(directoryListingServer(fs.readFileSync(path.join(SITES, f), 'utf8')), null, f);
  });
});
