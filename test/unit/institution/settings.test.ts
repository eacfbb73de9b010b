import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInstitutionSettingsStore, DEFAULT_INSTITUTION_SETTINGS, institutionSettingsSchema } from '../../../src/institution/settings.js';
import { migratedTestDatabase, type TestDatabase } from '../../helpers/db.js';

const ISSUER = 'https://lms.example.edu';

describe('institution settings store', () => {
  let db: TestDatabase;
  before(async () => {
    db = await migratedTestDatabase();
  });
  after(() => db.close());

  it('hands every reader one frozen value from its cache, and a change gives readers the new one', async () => {
    const store = createInstitutionSettingsStore(db);
    await store.save(ISSUER, 'client-1', { proctorRoles: ['Mentor'] });
    const first = await store.get(ISSUER, 'client-1');
    const second = await store.get(ISSUER, 'client-1');
    assert.equal(first, second, 'read once, shared');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.proctorRoles), 'frozen, nested values too');
    assert.throws(() => first.proctorRoles.push('Learner'), TypeError);
    const changed = await store.update(ISSUER, 'client-1', { proctorRoles: ['Mentor', 'TeachingAssistant'] });
    assert.deepEqual(changed.proctorRoles, ['Mentor', 'TeachingAssistant']);
    assert.deepEqual((await store.get(ISSUER, 'client-1')).proctorRoles, ['Mentor', 'TeachingAssistant']);
  });

  it('freezes a copy of the defaults, never the defaults themselves', async () => {
    const store = createInstitutionSettingsStore(db);
    const settings = await store.get(ISSUER, 'client-without-settings');
    assert.ok(Object.isFrozen(settings));
    assert.notEqual(settings.proctorRoles, DEFAULT_INSTITUTION_SETTINGS.proctorRoles);
    // Nor the schema's default values, which every later parse would share.
    const frozenWithin = (value: unknown, path: string): string[] =>
      typeof value !== 'object' || value === null ? [] : [...(Object.isFrozen(value) ? [path] : []), ...Object.entries(value).flatMap(([key, inner]) => frozenWithin(inner, `${path}.${key}`))];
    assert.deepEqual([...frozenWithin(DEFAULT_INSTITUTION_SETTINGS, 'defaults'), ...frozenWithin(institutionSettingsSchema.parse({}), 'parsed')], []);
  });
});
