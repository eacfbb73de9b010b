import type { Queryable } from '../types.js';
import ltijsStore from './0001_ltijs_store.js';
import * as lti from './0002_lti.js';
import * as exams from './0003_exams.js';
import * as institution from './0004_institution.js';
import * as hosted from './0005_hosted.js';
import * as examSettings from './0006_exam_settings.js';
import * as admin from './0007_admin.js';
import * as proctoringAccounts from './0008_proctoring_accounts.js';
import * as loginContext from './0009_login_context.js';
import * as webhooks from './0010_webhooks.js';
import * as registrationAttempts from './0011_registration_attempts.js';
import * as attemptAccounts from './0012_attempt_accounts.js';
import * as adminSignInFailures from './0013_admin_sign_in_failures.js';
import * as examQuizAddressCheck from './0014_exam_quiz_address_check.js';
import * as ltijsReplaceKey from './0015_ltijs_replace_key.js';
import * as examAccommodations from './0016_exam_accommodations.js';
import * as examAvailability from './0017_exam_availability.js';
import * as changeNotices from './0018_change_notices.js';
import * as attemptExemptions from './0019_attempt_exemptions.js';
import * as loginLtijsState from './0020_login_ltijs_state.js';
import * as examChangeNotices from './0021_exam_change_notices.js';
import * as pendingLoginsIndex from './0022_pending_logins_index.js';
import * as adminSignInClients from './0023_admin_sign_in_clients.js';
import * as loginClientNetwork from './0024_login_client_network.js';
import * as sealedAppSecrets from './0030_sealed_app_secrets.js';
import * as examToolSettings from './0040_exam_tool_settings.js';
import * as retention from './0080_retention.js';
import * as platformMoveIdentity from './0081_platform_move_identity.js';
import * as examQuizAddressCourse from './0085_exam_quiz_address_course.js';
import * as courseStaff from './0086_course_staff.js';
import * as attemptExpiry from './0100_attempt_expiry.js';
import * as settingsChangeAttempts from './0101_settings_change_attempts.js';
import * as proctoringServices from './0105_proctoring_services.js';
import * as privacyNotices from './0110_privacy_notices.js';
import * as platformSetupChecklists from './0115_platform_setup_checklists.js';

/**
 * One schema change. `up` runs inside the single transaction of `migrate()`, so: one statement per
 * `db.query()` call (PGlite takes one statement at a time), and nothing that refuses to run in a transaction
 * (CREATE INDEX CONCURRENTLY, VACUUM).
 */
export interface Migration {
  /** Recorded in schema_migrations: never rename one that has shipped. */
  name: string;
  up: (db: Queryable) => Promise<void>;
}

/**
 * Every migration in the order of its number (test/unit/db/migrations-order.test.ts checks it). Append new ones at
 * the end with the next number; never rename or edit one that has shipped. Databases that applied them in
 * another order are unaffected: each is recorded by name and runs once.
 */
export const migrations: readonly Migration[] = [
  ltijsStore,
  { name: '0002_lti', up: lti.up },
  { name: '0003_exams', up: exams.up },
  { name: '0004_institution', up: institution.up },
  { name: '0005_hosted', up: hosted.up },
  { name: '0006_exam_settings', up: examSettings.up },
  { name: '0007_admin', up: admin.up },
  { name: '0008_proctoring_accounts', up: proctoringAccounts.up },
  { name: '0009_login_context', up: loginContext.up },
  { name: '0010_webhooks', up: webhooks.up },
  { name: '0011_registration_attempts', up: registrationAttempts.up },
  { name: '0012_attempt_accounts', up: attemptAccounts.up },
  { name: '0013_admin_sign_in_failures', up: adminSignInFailures.up },
  { name: '0014_exam_quiz_address_check', up: examQuizAddressCheck.up },
  { name: '0015_ltijs_replace_key', up: ltijsReplaceKey.up },
  { name: '0016_exam_accommodations', up: examAccommodations.up },
  { name: '0017_exam_availability', up: examAvailability.up },
  { name: '0018_change_notices', up: changeNotices.up },
  { name: '0019_attempt_exemptions', up: attemptExemptions.up },
  { name: '0020_login_ltijs_state', up: loginLtijsState.up },
  { name: '0021_exam_change_notices', up: examChangeNotices.up },
  { name: '0022_pending_logins_index', up: pendingLoginsIndex.up },
  { name: '0023_admin_sign_in_clients', up: adminSignInClients.up },
  { name: '0024_login_client_network', up: loginClientNetwork.up },
  { name: '0030_sealed_app_secrets', up: sealedAppSecrets.up },
  { name: '0040_exam_tool_settings', up: examToolSettings.up },
  { name: '0080_retention', up: retention.up },
  { name: '0081_platform_move_identity', up: platformMoveIdentity.up },
  { name: '0085_exam_quiz_address_course', up: examQuizAddressCourse.up },
  { name: '0086_course_staff', up: courseStaff.up },
  { name: '0100_attempt_expiry', up: attemptExpiry.up },
  { name: '0101_settings_change_attempts', up: settingsChangeAttempts.up },
  { name: '0105_proctoring_services', up: proctoringServices.up },
  { name: '0110_privacy_notices', up: privacyNotices.up },
  { name: '0115_platform_setup_checklists', up: platformSetupChecklists.up },
];
