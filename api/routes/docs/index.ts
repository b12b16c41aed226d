import { notFound } from '../../../shared/errors.ts';
import { DOCS_CSP, docsAsset, docsImage, renderGuidePage, renderReferencePage } from '../../pages/docs.ts';
import { defineRoute, type RouteContext } from '../../route.ts';
import { FileParams, GuideParams } from './schema.ts';

// /docs: the interactive API reference and the guides, for people. Everything it loads comes
// from this origin (Swagger UI from node_modules), under a CSP without inline scripts.

const pageHeaders = (ctx: RouteContext, cache: string) => {
  ctx.set('Cache-Control', cache);
  ctx.set('Content-Security-Policy', DOCS_CSP);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
};

export default [
  defineRoute({
    method: 'get',
    path: '/docs',
    operationId: 'getDocs',
    summary: 'API reference (HTML)',
    description: 'The interactive reference drawn from /openapi.json, with links to the guides.',
    tags: ['Service'],
    access: { kind: 'public' },
    responses: { 200: { description: 'The reference page', contentType: 'text/html' } },
    handler(ctx) {
      pageHeaders(ctx, 'public, max-age=300');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = renderReferencePage();
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/guides/:name',
    operationId: 'getDocsGuide',
    summary: 'A guide (HTML)',
    description: 'One of the guides in docs/, rendered to HTML.',
    tags: ['Service'],
    access: { kind: 'public' },
    request: { params: GuideParams },
    responses: { 200: { description: 'The guide', contentType: 'text/html' } },
    async handler(ctx, { params }) {
      const page = await renderGuidePage(params.name);
      if (!page) throw notFound('No guide with that name.');
      pageHeaders(ctx, 'public, max-age=300');
      ctx.type = 'text/html; charset=utf-8';
      ctx.body = page;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/assets/:file',
    operationId: 'getDocsAsset',
    summary: 'A script or style sheet of /docs',
    tags: ['Service'],
    access: { kind: 'public' },
    hidden: true,
    request: { params: FileParams },
    responses: { 200: { description: 'The file', contentType: 'application/octet-stream' } },
    async handler(ctx, { params }) {
      const asset = await docsAsset(params.file);
      if (!asset) throw notFound('No such file.');
      pageHeaders(ctx, 'public, max-age=3600');
      ctx.type = asset.type;
      ctx.body = asset.body;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/docs/img/:file',
    operationId: 'getDocsImage',
    summary: 'An image of the guides',
    tags: ['Service'],
    access: { kind: 'public' },
    hidden: true,
    request: { params: FileParams },
    responses: { 200: { description: 'The image', contentType: 'image/png' } },
    async handler(ctx, { params }) {
      const image = await docsImage(params.file);
      if (!image) throw notFound('No such image.');
      pageHeaders(ctx, 'public, max-age=3600');
      ctx.type = image.type;
      ctx.body = image.body;
    },
  }),
];
