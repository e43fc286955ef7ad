/**
 * Runs once when the server starts, before it handles a request: from then on every request
 * carries the socket's address in `X-Forwarded-For` (lib/http/socket-address.ts).
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME === "nodejs") (await import("./lib/http/socket-address")).installSocketAddress();
}
