// The address of a user's picture, for /auth/user, userinfo and ID tokens alike.

/** {base_url}/pictures/<id>, with the upload's version to bust caches. */
export function pictureUrl(baseUrl: string, user: { id: string; picture?: { version: number } | undefined }): string {
  return `${baseUrl}/pictures/${user.id}${user.picture ? `?v=${user.picture.version}` : ""}`;
}
