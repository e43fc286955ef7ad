import { availableParallelism } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: {
    alias: { "@": path.resolve(__dirname) },
  },
  test: {
    environment: "node",
    include: ["**/*.test.ts"],
    exclude: ["node_modules/**", "e2e/**", ".next/**", ".data/**"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Child processes rather than worker threads: the native lmdb addon is not thread-safe to
    // load in several workers of one process.
    pool: "forks",
    // Vitest leaves one core to its own, idle process by default: one file at a time on two cores (docs/testing.md).
    poolOptions: { forks: { maxForks: Math.max(2, availableParallelism()) } },
  },
});
