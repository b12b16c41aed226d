import type { Selectable } from 'kysely';

export interface AuditProductsTable {
  id: string;
  name: string;
  description: string;
  dimension: string;
  price_pence: number;
  position: number;
}
export type AuditProduct = Selectable<AuditProductsTable>;
