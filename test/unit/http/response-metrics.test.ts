// Route groups of proctor_lti_http_responses_total: every route of the tool falls in a fixed group, never its path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { routeGroupOf } from '../../../src/http/response-metrics.js';

const GROUPS: Record<string, string> = {
  '/lti/login': 'lti_login',
  '/lti/launch': 'lti_launch',
  '/lti/launch/': 'lti_launch',
  '/lti/keys': 'lti_setup',
  '/lti/register': 'lti_setup',
  '/lti/canvas.json': 'lti_setup',
  '/lti/api/exams/3f2c/settings': 'lti_api',
  '/lti/hub/3f2c': 'lti_session',
  '/lti/exams/3f2c/settings': 'lti_session',
  '/lti': 'lti_session',
  '/hosted/roster': 'hosted',
  '/webhooks/proctoring/abc': 'webhooks',
  '/admin': 'admin',
  '/admin/platforms': 'admin',
  '/api/exam-pages': 'api',
  '/healthz': 'health',
  '/readyz': 'health',
  '/metrics': 'metrics',
  '/static/app.css': 'static',
  '/favicon.ico': 'static',
  '/sandbox/lms': 'sandbox',
  '/return/3f2c/done': 'return',
  '/': 'other',
  '/ltix/launch': 'other',
  '/wp-login.php': 'other',
};

describe('response route groups', () => {
  it('maps each path to its group', () => {
    assert.deepEqual(Object.fromEntries(Object.keys(GROUPS).map((path) => [path, routeGroupOf(path)])), GROUPS);
  });
});
