export interface ChromiumInstall {
  path: string;
  source: 'env' | 'system' | 'playwright';
}
export function findChromium(env?: NodeJS.ProcessEnv): ChromiumInstall | null;
