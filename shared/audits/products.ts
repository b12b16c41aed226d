import type { Kysely } from 'kysely';
import type { Database } from '../db/database.ts';

export interface ProductView {
  id: string;
  name: string;
  description: string;
  price_gbp: string;
  price_pence: number;
}

/** Pence are the truth; pounds are derived so the two can never disagree. */
export const penceToGbp = (pence: number) =>
  `${Math.floor(pence / 100)}.${String(pence % 100).padStart(2, '0')}`;

export async function listProducts(db: Kysely<Database>): Promise<ProductView[]> {
  const rows = await db.selectFrom('audit_products').selectAll().orderBy('position').execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    price_gbp: penceToGbp(r.price_pence),
    price_pence: r.price_pence,
  }));
}
