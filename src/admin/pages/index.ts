import type { AdminPageModule } from '../registry.js';
import { accountsPage } from './accounts.js';
import { auditPage } from './audit.js';
import { dashboardPage } from './dashboard.js';
import { institutionPage } from './institution.js';
import { lockoutsPage } from './lockouts.js';
import { movesPage } from './moves.js';
import { examsPage, launchesPage, rosterProblemsPage } from './operations.js';
import { platformsPage } from './platforms.js';
import { webhooksPage } from './webhooks.js';

/**
 * Every console page. A new page: a module in this folder made with `adminPage()`, listed here, its label in
 * views/admin/partials/nav.ejs.
 */
export const ADMIN_PAGES: readonly AdminPageModule[] = [
  dashboardPage,
  platformsPage,
  institutionPage,
  launchesPage,
  rosterProblemsPage,
  examsPage,
  webhooksPage,
  auditPage,
  lockoutsPage,
  accountsPage,
  movesPage,
];
