import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Work under way first. A request runs several statements one after the other; when a crowd fills
 * the PostgreSQL pool, each of them used to join the back of one first-come queue, so a request
 * waited for the whole queue once per statement (five statements, five waits: a minute for one step
 * at 500 visitors). A request's statements after its first go ahead of other requests' first ones
 * (client.ts): it waits once, at its start, and once served it finishes. A new request still waits
 * its turn behind the others, and past the pool's wait answers 503 with Retry-After.
 */
interface Turn {
  /** a statement of this request has asked for a connection already */
  served: boolean;
}

const turns = new AsyncLocalStorage<Turn>();
const TURN = Symbol('database turn');

/**
 * Runs `work` (an Express `next`) as part of the request's turn. Called again for the same request (once
 * its body is read, whose events come outside the first call's context) it continues the same turn.
 */
export function inRequestTurn(req: object, work: () => void): void {
  const holder = req as { [TURN]?: Turn };
  const turn = (holder[TURN] ??= { served: false });
  turns.run(turn, work);
}

/** Whether the current request has asked for a connection before (its statements go ahead); marks that it has. */
export function takeTurn(): boolean {
  const turn = turns.getStore();
  if (!turn) return false;
  const underWay = turn.served;
  turn.served = true;
  return underWay;
}
