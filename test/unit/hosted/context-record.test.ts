// A course's record is written once per burst of launches from it, and again as soon as the launch says
// something new about the course.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createContextStore } from '../../../src/hosted/contexts.js';
import type { Queryable } from '../../../src/db/types.js';

describe('recording the course of a launch', () => {
  it('writes once for identical launches, again when the title or the Names and Roles address changes', async () => {
    const statements: unknown[][] = [];
    const db: Queryable = {
      async query<Row>(_sql: string, params?: readonly unknown[]) {
        statements.push([...(params ?? [])]);
        return { rows: [] as Row[], rowCount: 0 };
      },
    };
    const contexts = createContextStore(db, { pseudonymSecret: 'secret' });
    const launch = { issuer: 'https://lms.example', clientId: 'c', deploymentId: '1', context: { id: 'course-1', title: 'Biology' }, namesRolesUrl: 'https://lms.example/nrps' };
    const section = await contexts.remember(launch);
    for (let i = 0; i < 50; i++) assert.equal(await contexts.remember(launch), section);
    assert.equal(statements.length, 1, 'a burst of one course writes its record once');
    await contexts.remember({ ...launch, context: { id: 'course-1', title: 'Biology II' } });
    await contexts.remember({ ...launch, namesRolesUrl: 'https://lms.example/nrps-2' });
    await contexts.remember({ ...launch, context: { id: 'course-2', title: 'Chemistry' } });
    assert.equal(statements.length, 4);
  });

  it('a failed write is tried again by the next launch', async () => {
    let calls = 0;
    const db: Queryable = {
      async query<Row>() {
        calls += 1;
        if (calls === 1) throw new Error('database down');
        return { rows: [] as Row[], rowCount: 0 };
      },
    };
    const contexts = createContextStore(db, { pseudonymSecret: 'secret' });
    const launch = { issuer: 'https://lms.example', clientId: 'c', deploymentId: '1', context: { id: 'course-1' } };
    await assert.rejects(contexts.remember(launch));
    await contexts.remember(launch);
    assert.equal(calls, 2);
  });
});
