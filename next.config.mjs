/** @type {import('next').NextConfig} */
const nextConfig = {
  // Says nothing a client needs and tells a prober what to try.
  poweredByHeader: false,
  // The end-to-end run's build (e2e/serve.ts) skips Next's own TypeScript pass: CI runs
  // `npm run typecheck` over the whole project just before it (docs/testing.md).
  typescript: { ignoreBuildErrors: process.env.BUILD_SKIP_TYPECHECK === "1" },
  // Native and server-only packages must be loaded by Node at run time, not bundled.
  serverExternalPackages: [
    "lmdb",
    "mongoose",
    "mongodb",
    "bson",
    "mingo",
    "pino",
    "@node-rs/argon2",
    "nodemailer",
    // One copy per process: its cluster aggregation keeps state of its own (lib/base/metrics/cluster.ts).
    "prom-client",
  ],
};

export default nextConfig;
