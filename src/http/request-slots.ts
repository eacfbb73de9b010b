/**
 * A value kept on one request or response object for as long as that object lives, in a property of its own
 * under a private symbol.
 *
 * Not a module-level WeakMap keyed by the request: V8's young-generation collections keep a long-lived WeakMap's
 * values alive whatever becomes of their keys (only a full collection checks them), so an entry whose value
 * leads back to its request kept that request — body, headers, closures — alive through every young collection
 * while it lasted, and into the old generation. In a load test of an express app, one such map took the share of
 * each request's allocation that got promoted from 0.2 % to 20 % on Node 20 (16 % on Node 24, where each young
 * collection then paused 13 ms instead of 0.7).
 */
export interface RequestSlot<Owner extends object, Value> {
  get(owner: Owner): Value | undefined;
  set(owner: Owner, value: Value): void;
}

export function requestSlot<Owner extends object, Value>(name: string): RequestSlot<Owner, Value> {
  const key = Symbol(name);
  return {
    get: (owner) => (owner as Record<symbol, Value | undefined>)[key],
    set: (owner, value) => {
      (owner as Record<symbol, Value | undefined>)[key] = value;
    },
  };
}

/**
 * Replaces a method of one request or response (say `res.cookie`), for that object only, with a function shared
 * by every object: `replacement` is made once, not per request, and gets the object, the data given for it and
 * the method it replaced. Not a closure made per request and set as the object's own property: a property of a
 * request, response or `res.locals` whose value is a function made while serving that request (its scope leads
 * back to the request) made V8 keep the whole request through young-generation collections, on Node 20 and 24
 * alike: in a load test of an express app, one such property took the share of each request's allocation that
 * got promoted from 0 % to 27 %, and each young collection from 3 to 50 ms. A closure kept inside a data object
 * does not; a shared function does not.
 *
 * Overriding an object twice with the same override (with others between, or not) keeps the first data: the
 * method is replaced once by it.
 */
export function methodOverride<Owner extends object, Args extends unknown[], Result, Data>(
  method: string,
  replacement: (owner: Owner, data: Data, original: (...args: Args) => Result, args: Args) => Result,
): (owner: Owner, data: Data) => void {
  type Method = (this: Owner, ...args: Args) => Result;
  const replaced = requestSlot<Owner, { original: Method; data: Data }>(`${method} before its override`);
  function overridden(this: Owner, ...args: Args): Result {
    const held = replaced.get(this);
    if (!held) throw new Error(`${method} was overridden without its original`);
    return replacement(this, held.data, (...originalArgs: Args) => held.original.apply(this, originalArgs), args);
  }
  return (owner, data) => {
    const methods = owner as Record<string, unknown>;
    if (replaced.get(owner)) return;
    const current = methods[method];
    if (typeof current !== 'function') throw new Error(`${method} is not a method of this object`);
    replaced.set(owner, { original: current as Method, data });
    methods[method] = overridden;
  };
}
