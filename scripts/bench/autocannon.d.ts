// The part of autocannon 8/9 the bench uses (the package ships no types).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  interface AutocannonOptions {
    url: string;
    connections?: number;
    amount?: number;
    duration?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
  }

  interface AutocannonResult {
    requests: { average: number; total: number };
    latency: { p50: number; p90: number; p99: number; max: number };
    non2xx: number;
    errors: number;
    timeouts: number;
    duration: number;
  }

  type Instance = EventEmitter & PromiseLike<AutocannonResult>;

  function autocannon(options: AutocannonOptions): Instance;
  export default autocannon;
}
