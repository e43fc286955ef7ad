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
    // Two files more than the cores: many wait on child processes or timers, leaving their core idle (docs/testing.md).
    poolOptions: { forks: { maxForks: availableParallelism() + 2, minForks: 1 } },
  },
});
