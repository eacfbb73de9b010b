import { z } from 'zod';
import { parseBody, textField } from '../../http/request-input.js';
import { textOf } from '../i18n.js';
import { adminPage } from '../page.js';
import { EVERYONE } from '../sign-in-limits.js';

const LIFT_FORM = z.object({ client: textField });
const CLIENT_PATTERN = /^(?:\*|[0-9a-fA-F:.]{2,45}(?:\/\d{1,3})?|unknown)$/;

/** Failed sign-ins per client group in the current window, which of them are locked out, and lifting a lockout. */
export const lockoutsPage = adminPage(
  { id: 'sign-in-lockouts', path: '/sign-in-lockouts', navOrder: 95 },
  (routes, context) => {
    routes.get('/', async (req, res) => {
      const counts = await context.signInLockouts.list();
      context.render(req, res, 'admin/sign-in-lockouts', { title: textOf(res)('admin:lockouts.title'), counts, everyone: EVERYONE });
    });

    routes.post('/lift', async (req, res) => {
      const { client } = parseBody(LIFT_FORM, req);
      if (!CLIENT_PATTERN.test(client)) {
        res.redirect(303, `${req.baseUrl}`);
        return;
      }
      if (await context.signInLockouts.lift(client)) {
        await context.recordChange(req, { action: 'admin.sign_in_unlock', target: client === EVERYONE ? 'everyone' : client });
      }
      res.redirect(303, `${req.baseUrl}?done=lockout-lifted`);
    });
  },
);
