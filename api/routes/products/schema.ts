import { z } from 'zod';

export const AuditProduct = z
  .object({
    id: z.string().describe('Product identifier; used as `product` when ordering'),
    name: z.string(),
    description: z.string(),
    price_gbp: z
      .string()
      .regex(/^\d+\.\d{2}$/)
      .describe('Decimal amount in pounds, two decimals'),
    price_pence: z.number().int().describe('Same price in pence'),
  })
  .meta({ id: 'AuditProduct' });

export const ProductList = z.array(AuditProduct);
