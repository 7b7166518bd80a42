import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * `npm run lint`, with dependency-cruiser (.dependency-cruiser.cjs), which holds ARCHITECTURE.md's
 * layers and forbids import cycles. Here: ESLint's and typescript-eslint's recommended rules,
 * without type information (`npm run typecheck` is the type check, and the lint stays fast).
 * Where a recommended rule flags a habit of this codebase on purpose, it is off or narrowed below
 * with the reason. Formatting is Prettier's (.prettierrc.json, `npm run format:check`), not ESLint's.
 */
export default tseslint.config(
  {
    ignores: ['dist/**', 'public/**', 'test-results/**', 'playwright-report/**', 'tests/.tmp/**', '**/*.d.ts', '**/*.d.mts'],
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore names what is unused on purpose: a parameter an interface requires,
      // a key taken out of an object with a rest (`{ _id: _, ...rest }`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // A new error thrown from a catch names the old one's message in its own; adding `cause`
      // would change the errors that are thrown, logged and sent.
      'preserve-caught-error': 'off',
      // Flags deliberate idioms: the last `n++` of a run, a reference dropped for the collector, a
      // default set before a `try` that may replace it.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Files that do one job (issue 34, item 4): at most 600 lines a file and 300 a function,
    // every line counted (blank lines and comments too).
    files: ['src/**', 'systems/**', 'components/**'],
    rules: {
      'max-lines': ['error', { max: 600, skipBlankLines: false, skipComments: false }],
      'max-lines-per-function': ['error', { max: 300, skipBlankLines: false, skipComments: false }],
    },
  },
  {
    // Tests and benchmarks reach into the page's globals, mocks and private fields.
    files: ['tests/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['src/server/routes/auth.ts'],
    rules: { 'no-control-regex': 'off' }, // a name is cleaned of C0 controls on purpose: wants `// eslint-disable-next-line no-control-regex`
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
