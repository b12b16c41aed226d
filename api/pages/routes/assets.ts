import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Router from '@koa/router';

// Static assets, from api/pages/assets/ and from installed npm packages (never a CDN), read once
// at start and served with an ETag.

const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), '../assets');
const require = createRequire(import.meta.url);
const ASSET_FILES: Record<string, { file: string; type: string }> = {
  'app.css': { file: path.join(folder, 'app.css'), type: 'text/css; charset=utf-8' },
  'app.js': { file: path.join(folder, 'app.js'), type: 'text/javascript; charset=utf-8' },
  'favicon.svg': { file: path.join(folder, 'favicon.svg'), type: 'image/svg+xml' },
  'uplot.js': {
    file: require.resolve('uplot/dist/uPlot.iife.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
  'uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
};
const assets = new Map(
  Object.entries(ASSET_FILES).map(([name, a]) => {
    const body = fs.readFileSync(a.file);
    return [
      name,
      { body, type: a.type, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` },
    ];
  }),
);

export function assetRoutes(router: Router): void {
  router.get('/assets/:name', async (ctx) => {
    const a = assets.get(ctx.params.name!);
    if (!a) return; // falls through to the API's 404
    ctx.state.routeName = '/assets/:name';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('ETag', a.etag);
    if (ctx.get('if-none-match') === a.etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = a.type;
    ctx.body = a.body;
  });
}
