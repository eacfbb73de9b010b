import { z } from 'zod';
import { parseQuery, trimmedField } from '../../http/request-input.js';
import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';

const AUDIT_SEARCH = z.object({ q: trimmedField.transform((text) => text.slice(0, 200)) });

/** The audit log of administrative changes (console and CLI), newest first, searchable. */
export const auditPage = adminPage(
  { id: 'audit', path: '/audit', navOrder: 90 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const text = parseQuery(AUDIT_SEARCH, req).q;
      const entries = await context.audit.list({ text: text || undefined, limit: 200 });
      context.render(req, res, 'admin/audit', { title: textOf(res)('admin:audit.title'), entries, q: text });
    });
  },
);
