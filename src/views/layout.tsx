// The page frame and the one way pages become HTML: preact renders to a string and escapes every
// text and attribute value, so user text can never become markup. Sending is HTTP's (http/pages/send-page.ts).
import type { ComponentChildren, VNode } from "preact";
import { renderToString } from "preact-render-to-string";

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.6rem 0}input[type=text],input[type=password],input[type=url],textarea{width:100%;padding:.4rem;box-sizing:border-box}
button{padding:.4rem .9rem;margin:.3rem .3rem .3rem 0}.error{color:#a00;border:1px solid #a00;padding:.5rem}
.secret{font-family:monospace;background:#ffd;padding:.5rem;word-break:break-all}code{word-break:break-all}
section{border-top:1px solid #ddd;margin-top:1.5rem}nav form{display:inline}`;

export function Page(props: {
  title: string;
  user?: { username: string } | undefined;
  csrf?: string | undefined;
  children: ComponentChildren;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · Sigil`}</title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <header>
          <strong>Sigil</strong>
          {props.user && props.csrf ? (
            <nav>
              {" · "}
              <a href="/account">Account</a>
              {" · "}
              <a href="/developers">Developers</a>
              {" · "}
              <form method="post" action="/signout">
                <Csrf token={props.csrf} />
                <button type="submit">Sign out</button>
              </form>
            </nav>
          ) : null}
        </header>
        <main>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

export function ErrorNote(props: { message?: string | undefined }) {
  return props.message ? (
    <p class="error" role="alert">
      {props.message}
    </p>
  ) : null;
}

/** A page as a whole HTML document. */
export function renderPage(page: VNode): string {
  return `<!doctype html>${renderToString(page)}`;
}
