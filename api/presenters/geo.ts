import type { GeoPrompt } from '../../shared/db/tables/geo.ts';

/** A canonical GEO prompt as REST and MCP show it. */
export const presentPrompt = (p: Pick<GeoPrompt, 'id' | 'prompt' | 'label' | 'created_at'>) => ({
  id: Number(p.id),
  prompt: p.prompt,
  label: p.label,
  createdAt: p.created_at.toISOString(),
});
