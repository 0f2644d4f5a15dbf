// Preloaded into the product process by the bench (`node --require scripts/bench/server-probe.cjs
// dist/src/index.js`); no product code changes. For every HTTP request carrying an
// `x-bench-flow` header it measures, inside the server:
//   - handler time: from the request event to the end of the response;
//   - outbound time: the calls the request itself makes to Discord's OAuth2 token and
//     /users/@me endpoints and to proxycheck (undici's diagnostics channels, which both
//     @discordjs/rest and fetch publish);
// and sums both per flow id, so the bench can report the time our server adds to a flow
// (handler minus outbound). The parent asks for the totals over the IPC channel. With
// WEB_CONCURRENCY > 1 the probe is loaded in the cluster primary and (through execArgv) in
// every worker: the primary asks each worker and merges per flow id (one flow's requests
// can land on different workers).
//
// Attributing a call to its request. One flow at a time (P2's serial phase, the server-time
// figure), the one request in flight made it. With flows in parallel, only an AsyncLocalStorage
// can tell, and on Node 20 that turns on promise hooks for every promise of the process: measured
// in turns, P2's serial server time was 2-3 ms higher on PGlite (15.3, 16.5 against 12.4, 14.6 ms)
// and 0.5-0.9 ms on PostgreSQL with the storage on, a cost of the probe that the product does not
// have in production. So the storage is made only when the bench says flows now run in parallel
// (`bench:reset` with `concurrent: true`, before P2's throughput phase).
'use strict';
const { AsyncLocalStorage } = require('node:async_hooks');
const cluster = require('node:cluster');
const diagnostics = require('node:diagnostics_channel');
const http = require('node:http');
const { performance } = require('node:perf_hooks');

/** made when the bench measures flows in parallel (see the top of the file) */
let storage = null;
/** the flow requests being handled, for attribution one flow at a time */
const inflight = new Set();
/** flow id → { handlerMs, outboundMs, requests, routes: { 'GET /oauth/callback': handler ms } } */
const flows = new Map();
const pending = new WeakMap();
// only the flow's own calls: the outbox worker, nudged from inside a request, must not count
const COUNTED = /\/oauth2\/token|\/users\/@me|\/v2\//;

function routeOf(req) {
  return `${req.method} ${(req.url || '').split('?')[0]}`;
}

const originalEmit = http.Server.prototype.emit;
http.Server.prototype.emit = function emit(event, req, res) {
  if (event !== 'request' || !req || !req.headers || typeof req.headers['x-bench-flow'] !== 'string') {
    return originalEmit.apply(this, arguments);
  }
  const store = { flow: req.headers['x-bench-flow'], route: routeOf(req), started: performance.now(), outboundMs: 0 };
  res.once('finish', () => {
    const handlerMs = performance.now() - store.started;
    let flow = flows.get(store.flow);
    if (!flow) {
      flow = { handlerMs: 0, outboundMs: 0, requests: 0, routes: {} };
      flows.set(store.flow, flow);
    }
    flow.handlerMs += handlerMs;
    flow.outboundMs += store.outboundMs;
    flow.requests += 1;
    flow.routes[store.route] = (flow.routes[store.route] || 0) + handlerMs - store.outboundMs;
  });
  inflight.add(store);
  res.once('close', () => inflight.delete(store));
  const args = arguments;
  return storage ? storage.run(store, () => originalEmit.apply(this, args)) : originalEmit.apply(this, args);
};

/** The flow request that made an outbound call: the storage's, or the one request in flight. */
function currentStore() {
  if (storage) return storage.getStore();
  if (inflight.size !== 1) return undefined;
  const [only] = inflight;
  return only;
}

diagnostics.subscribe('undici:request:create', ({ request }) => {
  const store = currentStore();
  if (!store || !COUNTED.test(String(request.path))) return;
  pending.set(request, { store, started: performance.now() });
});
const finish = ({ request }) => {
  const entry = pending.get(request);
  if (!entry) return;
  pending.delete(request);
  entry.store.outboundMs += performance.now() - entry.started;
};
diagnostics.subscribe('undici:request:trailers', finish);
diagnostics.subscribe('undici:request:error', finish);

function ownFlows() {
  return [...flows.entries()].map(([id, f]) => ({ id, ...f }));
}

/** Sums per flow id the lists the workers sent. */
function mergeFlows(lists) {
  const merged = new Map();
  for (const list of lists) {
    for (const f of list) {
      const into = merged.get(f.id) || { id: f.id, handlerMs: 0, outboundMs: 0, requests: 0, routes: {} };
      into.handlerMs += f.handlerMs;
      into.outboundMs += f.outboundMs;
      into.requests += f.requests;
      for (const [route, ms] of Object.entries(f.routes)) into.routes[route] = (into.routes[route] || 0) + ms;
      merged.set(f.id, into);
    }
  }
  return [...merged.values()];
}

/** The live workers when this process is a cluster primary (none otherwise). */
function liveWorkers() {
  if (!cluster.isPrimary) return [];
  return Object.values(cluster.workers || {}).filter((w) => w && !w.isDead() && w.isConnected());
}

let askSeq = 0;
/** Sends `message` to every worker and resolves with their answers (a worker silent for 5 s is left out). */
function askWorkers(workers, message) {
  return Promise.all(
    workers.map(
      (worker) =>
        new Promise((resolve) => {
          const id = `probe-${process.pid}-${++askSeq}`;
          const done = (answer) => {
            clearTimeout(timer);
            worker.off('message', onMessage);
            resolve(answer);
          };
          const onMessage = (message) => {
            if (message && message.id === id) done(message);
          };
          const timer = setTimeout(() => done(undefined), 5000);
          worker.on('message', onMessage);
          worker.send({ ...message, id });
        }),
    ),
  );
}

process.on('message', (message) => {
  if (!message || typeof message !== 'object') return;
  const workers = liveWorkers();
  if (workers.length > 0 && (message.type === 'bench:flows' || message.type === 'bench:reset')) {
    void askWorkers(workers, message).then((answers) => {
      const flowsOf = answers.filter(Boolean).map((a) => a.flows || []);
      process.send({ type: message.type, id: message.id, flows: mergeFlows(flowsOf), workers: answers.filter(Boolean).length });
    });
    return;
  }
  if (message.type === 'bench:flows') {
    process.send({ type: 'bench:flows', id: message.id, flows: ownFlows() });
  } else if (message.type === 'bench:reset') {
    flows.clear();
    if (message.concurrent && !storage) storage = new AsyncLocalStorage();
    process.send({ type: 'bench:reset', id: message.id });
  } else if (message.type === 'bench:memory') {
    process.send({ type: 'bench:memory', id: message.id, memory: process.memoryUsage() });
  }
});
// the IPC channel must not keep the product alive when it wants to exit (a cluster worker's
// channel is the primary's to manage)
if (process.channel && !cluster.isWorker) process.channel.unref();
