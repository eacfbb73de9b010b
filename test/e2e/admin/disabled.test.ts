import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import supertest from 'supertest';
import { startTestApp, type TestApp } from '../../helpers/app.js';

describe('admin console without ADMIN_PASSWORD', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(async () => {
    await app.close();
  });

  it('explains how to enable it, with the command that makes a hash', async () => {
    const response = await supertest(app.baseUrl).get('/admin/platforms');
    assert.equal(response.status, 503);
    assert.match(response.text, /ADMIN_PASSWORD/);
    assert.match(response.text, /scryptSync/);
  });
});

