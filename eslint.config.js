// ESLint (flat config) with typescript-eslint's recommended rules; formatting is Prettier's job,
// so eslint-config-prettier turns off every stylistic rule. Run by `npm run lint` (part of npm test).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import prettier from "eslint-config-prettier";
import globals from "globals";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "client/dist/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "no-control-regex": "off",
    },
  },
  { files: ["client/src/**", "src/views/**"], languageOptions: { globals: { ...globals.browser } } },
  {
    files: ["test/**"],
    languageOptions: { globals: { ...globals.mocha, ...globals.browser } },
    rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" },
  },
  prettier,
);
