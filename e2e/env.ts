/**
 * The first admin of the end-to-end server (e2e/serve.ts) and of the tests that sign in as it.
 * With E2E_BASE_URL (a server already running), E2E_ADMIN_PASSWORD names that server's password.
 */
export const E2E_ADMIN_EMAIL = process.env.E2E_ADMIN_EMAIL ?? "admin@example.com";
export const E2E_ADMIN_PASSWORD = process.env.E2E_ADMIN_PASSWORD ?? "e2e-admin-password";
