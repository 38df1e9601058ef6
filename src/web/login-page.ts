// The sign-in page of a server started with a token, in the dashboard's look: what a browser gets (401)
// on any page without the token, and at /login. Static markup and a form; no script (the CSP allows none inline).
import { html } from "./html.ts";
import { layout } from "./layout.ts";

export interface LoginPageOptions {
  /** Where to go after signing in: a same-site path, already checked by the caller. Default `/`. */
  next?: string;
  /** The token given was wrong. */
  failed?: boolean;
}

/** The sign-in form; `next` rides along as a hidden field, escaped like any other value. */
export function loginPage({ next = "/", failed = false }: LoginPageOptions = {}): string {
  return layout({
    title: "Sign in",
    signedOut: true,
    body: html`<h1>Sign in</h1>
<p>This Dramaturg server needs its access token (the <code>DRAMATURG_TOKEN</code> it was started with).</p>
${failed ? html`<p class="error" role="alert">That token is not valid.</p>` : ""}
<form method="post" action="/login">
<input type="hidden" name="next" value="${next}">
<label>Token <input type="password" name="token" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button>
</form>`,
  }).toString();
}
