import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';

/** The console's start page: platforms at a glance, recent changes. */
export const dashboardPage = adminPage(
  { id: 'overview', path: '/', navOrder: 0 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const platforms = await context.lti.platforms.list();
      const recent = await context.audit.list({ limit: 10 });
      context.render(req, res, 'admin/dashboard', { title: textOf(res)('admin:dashboard.title'), platforms, recent });
    });
  },
);
