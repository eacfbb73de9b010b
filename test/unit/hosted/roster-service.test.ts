import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { LtiContextRecord, RosterHealth } from '../../../src/hosted/contexts.js';
import { createRosterService, RosterError, type RosterServiceDeps } from '../../../src/hosted/roster.js';
import { NamesRolesError, type NamesRolesMember } from '../../../src/lti/names-roles.js';

const CONTEXT: LtiContextRecord = {
  sectionId: 'sec-a',
  issuer: 'https://lms.example.edu',
  clientId: 'client',
  deploymentId: '1',
  contextId: 'course-1',
  membershipsUrl: 'https://lms.example.edu/nrps/course-1',
};

function setup(overrides: Partial<RosterServiceDeps> = {}, contexts: LtiContextRecord[] = [CONTEXT]) {
  const notes: Array<[string, RosterHealth]> = [];
  const calls: string[] = [];
  const members: NamesRolesMember[] = [
    { userId: '1', status: 'Active', name: 'Ана', roles: [] },
    { userId: '2', status: 'Inactive', name: 'Ben', roles: [] },
  ];
  const deps: RosterServiceDeps = {
    contexts: {
      find: async (sectionId) => contexts.find((c) => c.sectionId === sectionId),
      noteRoster: async (sectionId, health) => void notes.push([sectionId, health]),
    },
    members: async (_platform, url) => {
      calls.push(url);
      await new Promise((resolve) => setTimeout(resolve, 20));
      return members;
    },
    userIdOf: (issuer, id) => `${new URL(issuer).host}:${id}`,
    cacheSeconds: 60,
    fetchTimeoutMs: 5_000,
    logger: pino({ level: 'silent' }),
    ...overrides,
  };
  return { service: createRosterService(deps), calls, notes };
}

describe('roster service', () => {
  it('serves the JSON text of active pairs and notes the outcome', async () => {
    const { service, notes } = setup();
    const roster = await service.get('sec-a');
    assert.equal(roster.json, JSON.stringify([['lms.example.edu:1', 'Ана']]));
    assert.deepEqual(notes, [['sec-a', { members: 1, unnamed: 0 }]]);
  });

  it('makes one Names and Roles fetch for concurrent cold requests, then serves from the cache', async () => {
    const { service, calls } = setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => service.get('sec-a')));
    assert.equal(calls.length, 1);
    assert.ok(results.every((r) => r.json === results[0]!.json));
    await service.get('sec-a');
    assert.equal(calls.length, 1);
  });

  it('fetches again once the cache time has passed', async () => {
    const { service, calls } = setup({ cacheSeconds: 1 });
    await service.get('sec-a');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await service.get('sec-a');
    assert.equal(calls.length, 2);
  });

  it('does not cache a failure', async () => {
    let fail = true;
    const { service } = setup({
      members: async () => {
        if (fail) throw new NamesRolesError('upstream', 'HTTP 500');
        return [];
      },
    });
    await assert.rejects(service.get('sec-a'), (error: unknown) => error instanceof RosterError && error.status === 502 && error.code === 'roster_unavailable');
    fail = false;
    assert.equal((await service.get('sec-a')).json, '[]');
  });

  it('answers 504 when Names and Roles is slower than the fetch timeout', async () => {
    const { service, notes } = setup({
      fetchTimeoutMs: 100,
      members: (_platform, _url, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new NamesRolesError('timeout', 'aborted')))),
    });
    const keepAlive = setTimeout(() => undefined, 1000);
    await assert.rejects(service.get('sec-a'), (error: unknown) => error instanceof RosterError && error.status === 504);
    clearTimeout(keepAlive);
    assert.match(notes[0]?.[1].error ?? '', /aborted/);
  });

  it('says clearly when the course has no Names and Roles, and when the course is unknown', async () => {
    const { service, calls } = setup({}, [{ ...CONTEXT, membershipsUrl: undefined }]);
    await assert.rejects(service.get('sec-a'), (error: unknown) => error instanceof RosterError && error.code === 'no_names_and_roles' && /Names and Roles/.test(error.message));
    await assert.rejects(service.get('sec-zz'), (error: unknown) => error instanceof RosterError && error.code === 'unknown_course' && error.status === 404);
    assert.equal(calls.length, 0);
  });

  it('notes members without names for the administrator', async () => {
    const { service, notes } = setup({ members: async () => [{ userId: '1', status: 'Active', roles: [] }] });
    const roster = await service.get('sec-a');
    assert.equal(roster.unnamed, 1);
    assert.deepEqual(notes, [['sec-a', { members: 1, unnamed: 1 }]]);
  });
});
