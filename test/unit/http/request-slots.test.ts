import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express, { type Response } from 'express';
import { methodOverride, requestSlot } from '../../../src/http/request-slots.js';
import { holdOpenedSession } from '../../../src/lti/ltijs-session.js';
import { cookieAttributes, onStateCookie, replaceLtijsErrorAnswers } from '../../../src/lti/ltijs-boundary.js';

describe('request slots', () => {
  it('keeps a value on its own object, one per object and per slot', () => {
    const first = requestSlot<object, string>('first');
    const second = requestSlot<object, string>('second');
    const a = {};
    const b = {};
    first.set(a, 'a1');
    second.set(a, 'a2');
    first.set(b, 'b1');
    assert.equal(first.get(a), 'a1');
    assert.equal(second.get(a), 'a2');
    assert.equal(first.get(b), 'b1');
    assert.equal(second.get(b), undefined);
    // Invisible to whatever lists or serialises the object.
    assert.deepEqual(Object.keys(a), []);
    assert.equal(JSON.stringify(a), '{}');
  });


  describe('method overrides', () => {
    class Greeter {
      constructor(readonly name: string) {}
      greet(greeting: string): string {
        return `${greeting}, ${this.name}`;
      }
    }
    const shout = methodOverride<Greeter, [string], string, string>('greet', (_owner, suffix, greet, [greeting]) => `${greet(greeting.toUpperCase())}${suffix}`);
    const quote = methodOverride<Greeter, [string], string, undefined>('greet', (_owner, _data, greet, [greeting]) => `"${greet(greeting)}"`);

    it('replaces a method of one object, calling what it replaced on that object', () => {
      const ada = new Greeter('Ada');
      const bob = new Greeter('Bob');
      shout(ada, '!');
      assert.equal(ada.greet('hello'), 'HELLO, Ada!');
      assert.equal(bob.greet('hello'), 'hello, Bob', 'another object keeps its method');
    });

    it('chains with another override, and overriding twice replaces once (the first data stays)', () => {
      const ada = new Greeter('Ada');
      shout(ada, '!');
      quote(ada, undefined);
      shout(ada, '?');
      assert.equal(ada.greet('hi'), '"HI, Ada!"');
    });

    it('puts one shared function on every object, never one made for it', () => {
      const ada = new Greeter('Ada');
      const bob = new Greeter('Bob');
      shout(ada, '!');
      shout(bob, '?');
      assert.equal(ada.greet, bob.greet);
    });
  });

  // A function made while serving a request and kept as a property of its request, response or res.locals made V8
  // keep the whole request through young-generation collections: what the tool sets on responses is shared.
  describe('what the tool sets on every response', () => {
    const response = () => Object.create(express.response) as Response & { locals: Record<string, unknown> };

    it('the adjusted cookie method, the state cookie watch and the ltijs error filter are shared functions', () => {
      const [a, b] = [response(), response()];
      const adjust = cookieAttributes(true, 600);
      for (const res of [a, b]) {
        adjust({} as never, res, () => undefined);
        onStateCookie(res, () => undefined);
        replaceLtijsErrorAnswers(res, () => undefined);
      }
      assert.ok(Object.hasOwn(a, 'cookie') && Object.hasOwn(a, 'send'));
      assert.equal(a.cookie, b.cookie);
      assert.equal(a.send, b.send);
    });

    it('the session token is signed by shared accessor functions, once, when first read', () => {
      const [a, b] = [response(), response()];
      a.locals = Object.create(null) as Record<string, unknown>;
      b.locals = Object.create(null) as Record<string, unknown>;
      let signed = 0;
      const sign = (payload: { s: string }) => `signed:${payload.s}:${++signed}`;
      const ltik = (s: string) => ({ platformUrl: 'https://lms.example', clientId: 'c', deploymentId: 'd', platformCode: 'p', contextId: 'x', user: 'u', s });
      holdOpenedSession(a, ltik('a'), sign);
      holdOpenedSession(b, ltik('b'), sign);
      const [accessorA, accessorB] = [Object.getOwnPropertyDescriptor(a.locals, 'ltik'), Object.getOwnPropertyDescriptor(b.locals, 'ltik')];
      assert.equal(accessorA?.get, accessorB?.get);
      assert.equal(accessorA?.set, accessorB?.set);
      assert.equal(signed, 0, 'nothing signed before a read');
      assert.equal(a.locals.ltik, 'signed:a:1');
      assert.equal(a.locals.ltik, 'signed:a:1', 'signed once');
      b.locals.ltik = 'given';
      assert.equal(b.locals.ltik, 'given');
      assert.deepEqual(Object.keys(a.locals), ['ltik']);
    });
  });
});

