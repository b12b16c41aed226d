import type { CliIO } from './context.ts';

// Progress for long commands: on a terminal, one line that updates in place with the phase and
// the time so far; elsewhere (a pipe, a log file, CI) one plain line per phase, nothing redrawn.

export interface Progress {
  /** The command moved on to `name`. */
  phase(name: string): void;
  /** Ends the display; `final` is printed as a plain line. */
  done(final?: string): void;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;

export function startProgress(io: CliIO, label: string, opts: { redrawMs?: number } = {}): Progress {
  const started = performance.now();
  const elapsed = () => seconds(performance.now() - started);
  let current = 'starting';
  const status = io.status;
  if (!status) {
    io.err(`[${elapsed()}] ${label}`);
    return {
      phase(name) {
        if (name === current) return;
        current = name;
        io.err(`[${elapsed()}] ${name}`);
      },
      done(final) {
        if (final) io.err(`[${elapsed()}] ${final}`);
      },
    };
  }
  // Phase and time first: a narrow terminal cuts the label, not the news.
  const draw = () => status(`${current} ${elapsed()} · ${label}`);
  draw();
  const timer = setInterval(draw, opts.redrawMs ?? 200);
  timer.unref();
  return {
    phase(name) {
      current = name;
      draw();
    },
    done(final) {
      clearInterval(timer);
      status('');
      if (final) io.err(`${final} (${elapsed()})`);
    },
  };
}

/**
 * The process's own CliIO: stdout and stderr, plus an updating status line on stderr when it is a
 * terminal. Printing a line first clears the status line, so the two never mix.
 */
export function processIO(stream: NodeJS.WriteStream = process.stderr): CliIO {
  let shown = false;
  const clear = () => {
    if (shown) stream.write('\r\x1b[K');
    shown = false;
  };
  return {
    out: (l) => {
      clear();
      process.stdout.write(`${l}\n`);
    },
    err: (l) => {
      clear();
      stream.write(`${l}\n`);
    },
    status: stream.isTTY
      ? (l) => {
          const width = Math.max((stream.columns || 80) - 1, 20);
          stream.write(`\r\x1b[K${l.length > width ? `${l.slice(0, width - 1)}…` : l}`);
          shown = l !== '';
        }
      : undefined,
  };
}
