import { Lost, ShellFrame } from "@/components/shell-frame";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Bad request" };

/**
 * What a page address the server cannot read shows (malformed percent-encoding, a raw byte that
 * should have been encoded): the server entry renders it with status 400 in place of the page
 * asked for (lib/platform/cli/server.ts, docs/security.md#hostile-input).
 */
export default function BadRequest() {
  return (
    <ShellFrame>
      <Lost status="400" title="Bad request">
        This address cannot be read: it holds a malformed character code (a % not followed by a valid one). Check the
        link, or start again from the users list.
      </Lost>
    </ShellFrame>
  );
}
