/** The users operations bound to the users service: what the route files under app/v2/users export. */
import { ifMatch, tagged } from "@/lib/http/etag";
import { handle } from "@/lib/http/route";
import { userTag } from "@/lib/users/repository";
import { createUser, getMe, getUser, listUsers, updateUser } from "@/lib/users/service";
import * as users from "@/lib/users/contract";

export const list = handle(users.list, ({ auth, query, notes }) => listUsers(auth, query, notes));

export const create = handle(users.create, async ({ request, auth, query, body, notes, origin }) => {
  const user = await createUser(auth, body, { notifyEmail: query.notifyEmail, origin, notes });
  return tagged(request, user, userTag(user), 201, { Location: `/v2/users/${user._id}` });
});

export const me = handle(users.me, async ({ request, auth }) => {
  const user = await getMe(auth);
  return tagged(request, user, userTag(user));
});

export const read = handle(users.read, async ({ request, auth, params }) => {
  const user = await getUser(auth, params.id);
  return tagged(request, user, userTag(user));
});

export const update = handle(users.update, async ({ request, auth, params, body, notes }) => {
  const user = await updateUser(auth, params.id, body, notes, ifMatch(request));
  return tagged(request, user, userTag(user));
});
