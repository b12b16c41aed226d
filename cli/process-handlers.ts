import type { Logger } from '../shared/logger.ts';

// The long-running processes (`api`, `worker`, `start`) never end on a promise nobody handled:
// Node's default is to exit, and graphile-worker leaves one such rejection behind whenever its
// cron stops on a database error (worker/runners.ts starts the cron again). The rejection is
// logged with its error and the process goes on. An uncaught exception still ends the process
// (its state is unknown), but through the log, with exit code 1, never silently.

export function installProcessHandlers(log: Logger): () => void {
  const onRejection = (reason: unknown) => {
    log.error({ err: reason }, 'unhandled promise rejection; the process goes on');
  };
  const onException = (err: Error) => {
    log.fatal({ err }, 'uncaught exception; exiting');
    process.exit(1);
  };
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
  return () => {
    process.off('unhandledRejection', onRejection);
    process.off('uncaughtException', onException);
  };
}
