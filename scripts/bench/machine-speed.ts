import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/**
 * How fast this machine runs right now, as one number a timing figure can be read against.
 *
 * The build machine is a virtual machine whose speed changes under it, with no CPU steal shown in
 * /proc/stat: on 2026-11-27 this reference, timed with nothing else running, went from 14 ms to
 * 27 ms and back within minutes, and P2's server time at 100k members from 11.7 to 18.9 ms for the
 * same build. A figure in ms alone cannot tell a slower product from a slower moment. So the bench
 * times a fixed piece of single-threaded work shaped like the product's per-request work (small
 * objects, JSON both ways, an HMAC-SHA256, a regular expression, a Map) around its timed phases and
 * prints it with the figure: when the reference took twice as long, so, roughly, did everything
 * else. Comparing two builds still means running them in turns, several times; this says which
 * kind of period a figure comes from.
 */

/** The reference's number of rounds; a probe does a quarter of them. */
const REFERENCE_ROUNDS = 2000;

/** One run of the fixed work; returns a value that depends on all of it, so none can be optimised away. */
function referenceWork(rounds = REFERENCE_ROUNDS): number {
  const key = Buffer.alloc(32, 7);
  let sum = 0;
  for (let i = 0; i < rounds; i++) {
    const row = {
      id: i,
      name: `visitor-${i}`,
      roles: ['a', 'b', String(i % 7)],
      at: new Date(1_700_000_000_000 + i).toISOString(),
      nested: { x: i * 1.5, y: [i, i + 1, i + 2] },
    };
    const text = JSON.stringify(row);
    const back = JSON.parse(text) as typeof row;
    sum += back.nested.y.length + text.length;
    sum += createHmac('sha256', key).update(text).digest('hex').charCodeAt(3);
    sum += /visitor-(\d+)/.exec(back.name)?.[1]?.length ?? 0;
    const map = new Map<string, number>();
    for (let j = 0; j < 20; j++) map.set(`k${j}`, j * i);
    sum += (map.get('k7') ?? 0) & 1;
  }
  return sum;
}

export interface MachineSpeed {
  /**
   * the fixed work's fastest run, ms (larger = slower machine): the figure to read, as other work on
   * the machine (the product's background jobs, the emulators in the bench's own thread) can only
   * make a run slower
   */
  minMs: number;
  medianMs: number;
  maxMs: number;
  runs: number;
}

/** Times the fixed work `runs` times after `warmups` untimed runs (the JIT's), in this thread. */
export function measureMachineSpeed(runs = 9, warmups = 3): MachineSpeed {
  if (!(Number.isInteger(runs) && runs >= 1)) throw new Error('measureMachineSpeed: runs must be a whole number ≥ 1');
  const sums = new Set<number>();
  for (let i = 0; i < warmups; i++) sums.add(referenceWork());
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    sums.add(referenceWork());
    times.push(performance.now() - started);
  }
  // every run gives the same sum (the results are kept, so no part of the work can be skipped)
  if (sums.size !== 1) throw new Error('measureMachineSpeed: the reference work gave different results');
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]!, maxMs: times[times.length - 1]!, runs };
}

/**
 * A quarter of the reference, timed once (ms, a few ms): cheap enough to run between two flows of
 * P2's serial phase, so that each flow can be told apart by the speed the machine ran at around it.
 */
export function probeMachineSpeed(): number {
  const started = performance.now();
  const sum = referenceWork(REFERENCE_ROUNDS / 4);
  const took = performance.now() - started;
  if (!(sum > 0)) throw new Error('probeMachineSpeed: the reference work gave no result');
  return took;
}

/**
 * Splits timed values by the machine's speed when each was taken: `speed` is each value's probe time
 * (probeMachineSpeed, larger = slower); a value whose probe took at most `slack` times the fastest
 * probe ran in the machine's fast periods, the others in its slow ones. Values without a probe are left out.
 */
export function splitByMachineSpeed<T>(
  items: readonly T[],
  speed: (item: T) => number | undefined,
  slack = 1.25,
): { fast: T[]; slow: T[]; fastestMs: number } {
  const probed = items.filter((item) => Number.isFinite(speed(item)));
  const fastestMs = Math.min(...probed.map((item) => speed(item)!));
  const fast = probed.filter((item) => speed(item)! <= fastestMs * slack);
  const slow = probed.filter((item) => speed(item)! > fastestMs * slack);
  return { fast, slow, fastestMs };
}

/** "machine reference 13.9 ms (…)": how a figure's note names the hour it ran in. */
export function describeMachineSpeed(speed: MachineSpeed): string {
  return `machine reference ${speed.minMs.toFixed(1)} ms (the fastest of ${speed.runs} runs of a fixed workload, median ${speed.medianMs.toFixed(1)}; larger = slower hour)`;
}
