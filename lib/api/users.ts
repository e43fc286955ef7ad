/** The users operations bound to the users service: what the route files under app/v2/users export. */
import { created, handle } from "@/lib/http/route";
import { createUser, getMe, getUser, listUsers, updateUser } from "@/lib/users/service";
import * as users from "@/lib/users/contract";

export const list = handle(users.list, ({ auth, query, notes }) => listUsers(auth, query, notes));

export const create = handle(users.create, async ({ auth, query, body, notes, origin }) => {
  const user = await createUser(auth, body, { notifyEmail: query.notifyEmail, origin, notes });
  return created(user, `/v2/users/${user._id}`);
});

export const me = handle(users.me, ({ auth }) => getMe(auth));

export const read = handle(users.read, ({ auth, params }) => getUser(auth, params.id));

export const update = handle(users.update, ({ auth, params, body, notes }) => updateUser(auth, params.id, body, notes));
