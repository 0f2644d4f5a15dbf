import fs from 'node:fs';

/**
 * CPU accounting of the whole machine for figures whose load runs in several processes: the
 * product, the bench's own load generator and emulators, and (PostgreSQL engine) the database
 * server's backends, which are neither. Linux /proc only; elsewhere the figures are NaN.
 */

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
export const CLOCK_TICKS = 100;

/**
 * One /proc stat file (`/proc/<pid>/stat` or a thread's `/proc/<pid>/task/<tid>/stat`): the command
 * name, and the fields after it (state is field 0, the parent's pid 1, user and system CPU ticks 11
 * and 12). Null when the process or thread is gone.
 */
export function readStat(file: string): { name: string; fields: string[] } | null {
  try {
    const stat = fs.readFileSync(file, 'utf8');
    // the name is in parentheses and may itself contain spaces and parentheses
    const close = stat.lastIndexOf(')');
    return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}

/** User + system CPU-seconds in a stat file's fields. */
export function statCpuSeconds(fields: string[]): number {
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

/** Busy and total CPU-seconds of the machine so far, summed over its cores (/proc/stat's first line). */
export function machineCpu(): { busy: number; total: number } {
  try {
    const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal …: idle and iowait are the time nobody computed
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
    const busy = user + nice + system + irq + softirq + steal;
    return { busy: busy / CLOCK_TICKS, total: (busy + idle + iowait) / CLOCK_TICKS };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/** CPU-seconds used so far by every running process named `name` (e.g. the PostgreSQL server's backends). */
export function processesCpuSeconds(name: string): number {
  let total = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(`/proc/${entry}/stat`);
    if (stat?.name === name) total += statCpuSeconds(stat.fields);
  }
  return total;
}

/** CPU-seconds of each thread of a process so far, by thread id. */
export function threadCpuSeconds(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const stat = readStat(`/proc/${pid}/task/${tid}/stat`);
      if (stat) threads.set(Number(tid), statCpuSeconds(stat.fields));
    }
  } catch {
    // the process is gone
  }
  return threads;
}

/** The thread (other than `exceptTid`) that used the most CPU between two readings, and how much. */
export function busiestThread(
  before: Map<number, number>,
  after: Map<number, number>,
  exceptTid: number,
): { tid: number; seconds: number } | null {
  let best: { tid: number; seconds: number } | null = null;
  for (const [tid, seconds] of after) {
    if (tid === exceptTid) continue;
    const used = seconds - (before.get(tid) ?? 0);
    if (!best || used > best.seconds) best = { tid, seconds: used };
  }
  return best;
}
