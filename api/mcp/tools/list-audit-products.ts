import { z } from 'zod';
import { listProducts } from '../../../shared/audits/products.ts';
import { ProductList } from '../../routes/products/schema.ts';
import { defineTool } from '../tool.ts';

export default defineTool({
  name: 'list_audit_products',
  title: 'List audit products',
  description:
    'Lists the 7 audit products with their ids (used as `product` by place_audit_order) and prices. ' +
    'Structured content is { products: <the GET /api/v1/products array> }. Any tier.',
  input: z.strictObject({}),
  output: z.object({ products: ProductList }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(_args, { services }) {
    const products = await listProducts(services.db);
    return {
      structured: { products },
      text: `${products.length} audit products: ${products.map((p) => `${p.name} (${p.id}) £${p.price_gbp}`).join('; ')}.`,
    };
  },
});
