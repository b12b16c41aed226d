import type { LookupAddress, LookupOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { normalizeHost } from './address-policy.ts';
import { NetError } from './net-error.ts';
import { resolveChecked, type UrlPolicy } from './url-policy.ts';

/**
 * A socket `lookup` that resolves through the policy and hands the socket only addresses it has
 * checked: the connection goes to exactly what was validated, so DNS rebinding between a check
 * and the connect is impossible. Node skips `lookup` for IP literals; callers check those first
 * (precheckUrl).
 */
export function policyLookup(
  policy: UrlPolicy,
  port: number,
  onResolved?: (ms: number) => void,
): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const started = performance.now();
    resolveChecked(policy, normalizeHost(hostname), port).then(
      (answers) => {
        onResolved?.(performance.now() - started);
        const family = options.family === 4 || options.family === 6 ? options.family : null;
        const usable = family ? answers.filter((a) => a.family === family) : answers;
        const first = usable[0];
        if (!first) {
          callback(
            new NetError('dns_failure', `${hostname} has no IPv${family} address`) as NodeJS.ErrnoException,
            '',
          );
          return;
        }
        if (options.all)
          callback(
            null,
            usable.map((a): LookupAddress => ({ address: a.address, family: a.family })),
          );
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, ''),
    );
  };
}
