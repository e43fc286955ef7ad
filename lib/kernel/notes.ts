import type { Notification } from "@/lib/base/schemas/common";

/**
 * The debug notifications of one request (docs/api.md#debug): collected always, returned only with
 * `debug=true`. Services receive this to explain what they did with a request.
 */
export class Notes {
  readonly list: Notification[] = [];

  info(code: string, message: string, path?: string): void {
    this.list.push(path === undefined ? { level: "info", code, message } : { level: "info", code, message, path });
  }

  warning(code: string, message: string, path?: string): void {
    this.list.push(
      path === undefined ? { level: "warning", code, message } : { level: "warning", code, message, path },
    );
  }

  error(code: string, message: string, path?: string): void {
    this.list.push(path === undefined ? { level: "error", code, message } : { level: "error", code, message, path });
  }
}
