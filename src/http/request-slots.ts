/**
 * A value kept on one request or response object for as long as that object lives, in a property of its own
 * under a private symbol.
 *
 * Not a module-level WeakMap keyed by the request: young-generation collections keep such a map's values alive
 * whatever becomes of their keys, so a value leading back to its request kept the whole request into the old
 * generation (measured in docs/performance.md, "The rules").
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
      Reflect.set(owner, key, value);
    },
  };
}

/**
 * Replaces a method of one request or response (say `res.cookie`), for that object only, with a function shared
 * by every object: `replacement` is made once, not per request, and gets the object, the data given for it and
 * the method it replaced. Not a closure made per request and set as the object's own property: such a function,
 * whose scope leads back to the request, makes V8 keep the whole request through young-generation collections
 * on Node 20 and 24 alike (docs/performance.md, "The rules"); a shared function does not.
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
    if (replaced.get(owner)) return;
    const current: unknown = Reflect.get(owner, method);
    if (typeof current !== 'function') throw new Error(`${method} is not a method of this object`);
    replaced.set(owner, { original: current as Method, data });
    Reflect.set(owner, method, overridden);
  };
}
