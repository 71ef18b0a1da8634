// The account page: display name, profile picture, app consents (docs/http-api.md#account).
import type { UserRecord } from "../store/port.js";
import { Csrf, ErrorNote, Page } from "./layout.js";

export function AccountPage(p: {
  user: UserRecord;
  pictureUrl: string;
  consents: Array<{ clientId: string; name: string }>;
  csrf: string;
  error?: string | undefined;
  notice?: string | undefined;
}) {
  return (
    <Page title="Your account" user={p.user} csrf={p.csrf}>
      <ErrorNote message={p.error} />
      {p.notice ? <p role="status">{p.notice}</p> : null}
      <p>
        <img src={p.pictureUrl} alt="Profile picture" width={96} height={96} />
      </p>
      <p>
        Signed in as <strong class="display-name">{p.user.displayName}</strong> (<code>{p.user.username}</code>)
      </p>
      <form method="post" action="/account">
        <Csrf token={p.csrf} />
        <label>
          Display name <input type="text" name="display_name" required maxLength={64} value={p.user.displayName} />
        </label>
        <button type="submit">Save</button>
      </form>
      {/* The token stays the form's first field: the server reads it, and checks it, before the file. */}
      <form method="post" action="/account" enctype="multipart/form-data">
        <Csrf token={p.csrf} />
        <label>
          Profile picture (PNG, JPEG, GIF or WebP, up to 1 MB and 8,000 pixels a side; shown at most 512×512){" "}
          <input type="file" name="picture" accept="image/png,image/jpeg,image/gif,image/webp" required />
        </label>
        <button type="submit">Upload</button>
      </form>
      <section>
        <h2>Apps you allowed</h2>
        {p.consents.length === 0 ? <p>None.</p> : null}
        <ul>
          {p.consents.map((c) => (
            <li key={c.clientId}>
              {c.name}{" "}
              <form method="post" action="/account/consents/withdraw" style="display:inline">
                <Csrf token={p.csrf} />
                <input type="hidden" name="client_id" value={c.clientId} />
                <button type="submit">Withdraw</button>
              </form>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}
