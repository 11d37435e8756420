// ESLint for the front end's ES modules (app/static, never the vendored files) and their tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["app/static/vendor/", "node_modules/"] },
  js.configs.recommended,
  {
    files: ["app/static/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["app/static/*-sw.js"],
    languageOptions: { globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "none", caughtErrors: "none" }],
    },
  },
];
