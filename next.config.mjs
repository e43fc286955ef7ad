/** @type {import('next').NextConfig} */
const nextConfig = {
  // Says nothing a client needs and tells a prober what to try.
  poweredByHeader: false,
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
  ],
};

export default nextConfig;
