import { z } from 'zod';

export const GuideParams = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9-]{1,40}$/)
    .describe('A guide’s name, e.g. `monitoring` (docs/monitoring.md)'),
});

export const FileParams = z.object({
  file: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,80}$/)
    .describe('A file name'),
});
