import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { setPriority } from 'node:os';

// Process-table helpers (Linux /proc) for guaranteeing, and proving in tests and benchmarks, that
// no Chromium outlives its owner.

export interface ProcessEntry {
  pid: number;
  pgid: number;
  state: string; // Z = zombie: exited, waiting to be reaped; holds no resources
  cmdline: string; // arguments joined by spaces; empty for zombies
}

function readEntry(pid: number): ProcessEntry | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { pid, pgid: Number(fields[2]), state: fields[0] ?? '?', cmdline };
  } catch {
    return null; // exited while we looked
  }
}

/** Every process visible in /proc (empty where there is no /proc). */
export function listProcesses(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = readEntry(Number(name));
    if (entry) out.push(entry);
  }
  return out;
}

/**
 * Whether a process's environment holds `entry` (NAME=value): how the processes a run started are
 * found again by a marker they inherit, when their command lines name nothing of ours.
 */
export function environHas(pid: number, entry: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(entry);
  } catch {
    return false; // exited while we looked, or not ours to read
  }
}

/** Live (non-zombie) processes whose command line contains `needle`, e.g. a profile directory. */
export function findProcesses(needle: string): ProcessEntry[] {
  return listProcesses().filter((p) => p.state !== 'Z' && p.cmdline.includes(needle));
}

/** Live Chromium processes, optionally only those whose command line contains `needle`. */
export function countChromiumProcesses(needle = ''): number {
  return listProcesses().filter(
    (p) =>
      p.state !== 'Z' && /chrom(e|ium)/i.test(p.cmdline.split(' ')[0] ?? '') && p.cmdline.includes(needle),
  ).length;
}

// A stat read is a short synchronous read: 16 of them keep each turn of the loop short, with far
// fewer hops than one asynchronous read (open, stat, read, close on the thread pool) per file.
const YIELD_EVERY = 16;

/**
 * Pids of the live members of any of these process groups: one pass over /proc reading only each
 * process's stat line (cmdline is not needed). The memory guard asks twice a second during every
 * browser session, so the pass yields to the event loop every few files: read in one go, the
 * hundred-odd processes of a full scan would hold the worker's loop long enough to delay
 * heartbeats and job pickup.
 */
export async function groupPids(pgids: ReadonlySet<number>): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  let read = 0;
  for (const name of names) {
    if (name.charCodeAt(0) > 57) continue; // not a pid (self, sys, ...)
    if (++read % YIELD_EVERY === 0) await new Promise(setImmediate);
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
      if (fields[0] !== 'Z' && pgids.has(Number(fields[2]))) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}
/** Live processes of a process group. */
export function groupMembers(pgid: number): ProcessEntry[] {
  return listProcesses().filter((p) => p.pgid === pgid && p.state !== 'Z');
}

/** SIGKILLs a whole process group; true when a signal was delivered. */
export function killGroup(pgid: number): boolean {
  try {
    process.kill(-pgid, 'SIGKILL');
    return true;
  } catch {
    return false; // ESRCH: the group is already gone
  }
}

/** Kills the group and waits (bounded) until none of its members is alive. */
export async function killGroupAndWait(pgid: number, timeoutMs = 3000): Promise<boolean> {
  killGroup(pgid);
  const until = Date.now() + timeoutMs;
  const gone = async () => (await groupPids(new Set([pgid]))).length === 0;
  while (Date.now() < until) {
    if (await gone()) return true;
    await new Promise((r) => setTimeout(r, 25));
    killGroup(pgid);
  }
  return gone();
}

/** The nice value of the browser's and Lighthouse's processes (0 is the worker's own). */
export const BACKGROUND_NICE = 10;

/**
 * Lowers the CPU priority of every thread of the groups' processes. A full scan's Chromium and
 * Lighthouse can keep every core busy, leaving the worker's event loop (heartbeats, job pickup,
 * other jobs' I/O) waiting for one; niced, they yield to it at once and still get every core the
 * worker leaves idle. Threads and processes made later
 * (renderers forked by the zygote, a child's new threads) inherit the value from their maker.
 */
export async function lowerPriority(pgids: ReadonlySet<number>, nice = BACKGROUND_NICE): Promise<void> {
  for (const pgid of pgids) lowerAutogroup(pgid, nice);
  for (const { tid } of await groupThreads(pgids)) {
    try {
      setPriority(tid, nice);
    } catch {
      // exited, or not ours to change: it keeps its priority
    }
  }
}

/**
 * Where the kernel groups processes by session (CONFIG_SCHED_AUTOGROUP, on by default), a
 * detached child (a session of its own: the pool's Chromium, the Lighthouse child) is scheduled
 * as one autogroup with the same share as the worker's whole session, whatever its threads' nice
 * values, so nicing its threads alone leaves the worker's event loop waiting for a core during
 * full scans. The autogroup's own nice value weights the group; raising it needs no privilege.
 * Never applied to our own autogroup (a child that did not start a session shares it).
 */
export function lowerAutogroup(pid: number, nice = BACKGROUND_NICE): boolean {
  const group = autogroupOf(pid);
  if (!group || group.name === autogroupOf('self')?.name) return false;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    return false; // exited, or not ours
  }
}

/** A process's autogroup ("/autogroup-85 nice 0"), or null where the kernel has none. */
export function autogroupOf(pid: number | 'self'): { name: string; nice: number } | null {
  try {
    const m = /^(\S+) nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return m ? { name: m[1]!, nice: Number(m[2]) } : null;
  } catch {
    return null;
  }
}

/** Every thread of the groups' live processes, by /proc/<pid>/task. */
async function groupThreads(pgids: ReadonlySet<number>): Promise<{ pid: number; tid: number }[]> {
  const out: { pid: number; tid: number }[] = [];
  for (const pid of await groupPids(pgids)) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) out.push({ pid, tid: Number(tid) });
    } catch {
      // exited
    }
  }
  return out;
}

/** A thread's nice value from its /proc/<pid>/task/<tid>/stat (field 19), or null once it has exited. */
export function threadNice(pid: number | 'self', tid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after "(comm)" start at the state (field 3): nice (field 19) is the 17th.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return null;
  }
}

/** The nice value of every thread of the groups' processes (for tests and benchmarks). */
export async function groupThreadNices(pgids: ReadonlySet<number>): Promise<number[]> {
  const nices = (await groupThreads(pgids)).map(({ pid, tid }) => threadNice(pid, tid));
  return nices.filter((n) => n !== null);
}
