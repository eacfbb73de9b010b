import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';

/** The audit log of administrative changes (console and CLI), newest first, searchable. */
export const auditPage = adminPage(
  { id: 'audit', path: '/audit', navOrder: 90 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const text = typeof req.query.q === 'string' ? req.query.q.trim().slice(0, 200) : '';
      const entries = await context.audit.list({ text: text || undefined, limit: 200 });
      context.render(req, res, 'admin/audit', { title: textOf(res)('admin:audit.title'), entries, q: text });
    });
  },
);
