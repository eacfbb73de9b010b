import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'reports/', '.stryker-tmp*/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Request input and res.locals are parsed or read through typed views (docs/request-input.md), never cast.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression MemberExpression[object.name=/^(req|request)$/][property.name=/^(body|query|params)$/]',
          message: 'Parse request input with parseBody/parseQuery/parseParams (src/http/request-input.ts) instead of casting it.',
        },
        {
          selector: 'TSAsExpression MemberExpression[property.name="locals"]',
          message: 'Read res.locals through a typed view (localsOf in src/http/locals.ts, or the feature\'s own) instead of casting it.',
        },
        {
          selector: 'TSAsExpression MemberExpression[property.name=/^(cookies|signedCookies)$/]',
          message: 'Read cookies with signedCookie/plainCookie (src/http/cookies.ts) instead of casting them.',
        },
      ],
    },
  },
  {
    files: ['public/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
