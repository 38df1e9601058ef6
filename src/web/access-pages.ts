// The pages of access control besides the sign-in form: signing out, too many wrong tokens, and a request
// for a host name this server does not answer to. Static markup and forms, no script.
import { html } from "./html.ts";
import { layout } from "./layout.ts";

/** GET /logout: one button that posts the sign-out (a form, so it works without JavaScript). */
export function signOutPage(): string {
  return layout({
    title: "Sign out",
    signedOut: true,
    body: html`<h1>Sign out</h1>
<p>Signing out ends this browser's session on this server; the token is needed to sign in again.</p>
<form method="post" action="/logout">
<button type="submit">Sign out</button>
</form>`,
  }).toString();
}

/** The sign-in form refused for now (429): how long to wait. */
export function signInThrottledPage({ retryAfter }: { retryAfter: number }): string {
  return layout({
    title: "Too many tries",
    signedOut: true,
    body: html`<h1>Too many tries</h1>
<p class="error" role="alert">Too many wrong tokens from this address. Try again in ${retryAfter} seconds.</p>
<p><a href="/login">Back to sign in</a></p>`,
  }).toString();
}

/** The 421 page of a foreign Host: a standalone document, since its stylesheet would be refused too. */
export function misdirectedPage({ host }: { host: string }): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Misdirected request · Dramaturg</title></head>
<body>
<h1>Misdirected request</h1>
<p>This Dramaturg server does not answer to the host name <code>${host}</code>. If that name should reach it,
start it with <code>--allowed-host ${host}</code>.</p>
</body>
</html>
`.toString();
}
