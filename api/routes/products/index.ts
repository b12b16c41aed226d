import { listProducts } from '../../../shared/audits/products.ts';
import { defineRoute } from '../../route.ts';
import { ProductList } from './schema.ts';

export default [
  defineRoute({
    method: 'get',
    path: '/api/v1/products',
    operationId: 'listProducts',
    summary: 'The 7 audit products with prices (variant A)',
    tags: ['Audits'],
    access: { kind: 'public' },
    responses: { 200: { description: 'The catalogue', schema: ProductList } },
    async handler(ctx, _input, services) {
      ctx.body = await listProducts(services.db);
    },
  }),
];
