import { pino } from 'pino';
import { config } from './config.ts';

// Keys and secrets never reach the logs: headers and known secret fields are redacted here, once.
export const redactPaths = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'password',
  '*.password',
];

export function createLogger(name: string, destination?: NodeJS.WritableStream, level = config().LOG_LEVEL) {
  const options = {
    name,
    level,
    redact: { paths: redactPaths, censor: '[redacted]' },
    base: { pid: process.pid, proc: name },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type Logger = ReturnType<typeof createLogger>;
